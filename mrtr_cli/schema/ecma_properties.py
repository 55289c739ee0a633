"""The property names and values ECMA-262 accepts in `\\p{...}` with the `u` flag, and
what each is in the syntax of the `regex` package.

Spec: ECMA-262 2024 22.2.2.9 (UnicodeMatchProperty, UnicodeMatchPropertyValue) and its
tables 67 (non-binary properties: General_Category, Script, Script_Extensions, with their
aliases gc, sc, scx) and 68 (binary properties), whose values are those of the Unicode
Character Database's PropertyValueAliases.txt. A name is matched as written: no loose
matching (case, spaces, `Is` or `In` prefixes), unlike `regex`'s own reading of `\\p{...}`.

Source: the npm packages `unicode-property-aliases-ecmascript` 2.2.0 and
`unicode-property-value-aliases-ecmascript` 2.2.1 (Unicode 17.0.0; Mathias Bynens, MIT),
which list exactly these names, and ECMA-262's own `ASCII`, `Any` and `Assigned`. The
properties of strings of table 69 (`Basic_Emoji`, ...) need the `v` flag: not here.
"""

from __future__ import annotations


def _table(text: str) -> dict[str, str]:
    """Each name of `text` (groups split by `|`, each its long name and then its aliases)
    -> the group's long name."""
    return {name: group.split()[0] for group in text.split("|") for name in group.split()}


#: General_Category: each value and alias (`Lu`, `Uppercase_Letter`, `digit`) -> its long name.
GENERAL_CATEGORY = _table(
    "Cased_Letter LC | Close_Punctuation Pe | Connector_Punctuation Pc | Control Cc cntrl | "
    "Currency_Symbol Sc | Dash_Punctuation Pd | Decimal_Number Nd digit | Enclosing_Mark Me | "
    "Final_Punctuation Pf | Format Cf | Initial_Punctuation Pi | Letter L | Letter_Number Nl | "
    "Line_Separator Zl | Lowercase_Letter Ll | Mark M Combining_Mark | Math_Symbol Sm | Modifier_Letter Lm | "
    "Modifier_Symbol Sk | Nonspacing_Mark Mn | Number N | Open_Punctuation Ps | Other C | Other_Letter Lo | "
    "Other_Number No | Other_Punctuation Po | Other_Symbol So | Paragraph_Separator Zp | Private_Use Co | "
    "Punctuation P punct | Separator Z | Space_Separator Zs | Spacing_Mark Mc | Surrogate Cs | Symbol S | "
    "Titlecase_Letter Lt | Unassigned Cn | Uppercase_Letter Lu"
)

#: Script (and Script_Extensions): each value and alias (`Grek`, `Greek`, `Qaai`) -> its long name.
SCRIPT = _table(
    "Adlam Adlm | Ahom | Anatolian_Hieroglyphs Hluw | Arabic Arab | Armenian Armn | Avestan Avst | "
    "Balinese Bali | Bamum Bamu | Bassa_Vah Bass | Batak Batk | Bengali Beng | Beria_Erfe Berf | "
    "Bhaiksuki Bhks | Bopomofo Bopo | Brahmi Brah | Braille Brai | Buginese Bugi | Buhid Buhd | "
    "Canadian_Aboriginal Cans | Carian Cari | Caucasian_Albanian Aghb | Chakma Cakm | Cham | Cherokee Cher | "
    "Chorasmian Chrs | Common Zyyy | Coptic Copt Qaac | Cuneiform Xsux | Cypriot Cprt | Cypro_Minoan Cpmn | "
    "Cyrillic Cyrl | Deseret Dsrt | Devanagari Deva | Dives_Akuru Diak | Dogra Dogr | Duployan Dupl | "
    "Egyptian_Hieroglyphs Egyp | Elbasan Elba | Elymaic Elym | Ethiopic Ethi | Garay Gara | Georgian Geor | "
    "Glagolitic Glag | Gothic Goth | Grantha Gran | Greek Grek | Gujarati Gujr | Gunjala_Gondi Gong | "
    "Gurmukhi Guru | Gurung_Khema Gukh | Han Hani | Hangul Hang | Hanifi_Rohingya Rohg | Hanunoo Hano | "
    "Hatran Hatr | Hebrew Hebr | Hiragana Hira | Imperial_Aramaic Armi | Inherited Zinh Qaai | "
    "Inscriptional_Pahlavi Phli | Inscriptional_Parthian Prti | Javanese Java | Kaithi Kthi | Kannada Knda | "
    "Katakana Kana | Katakana_Or_Hiragana Hrkt | Kawi | Kayah_Li Kali | Kharoshthi Khar | "
    "Khitan_Small_Script Kits | Khmer Khmr | Khojki Khoj | Khudawadi Sind | Kirat_Rai Krai | Lao Laoo | "
    "Latin Latn | Lepcha Lepc | Limbu Limb | Linear_A Lina | Linear_B Linb | Lisu | Lycian Lyci | Lydian Lydi | "
    "Mahajani Mahj | Makasar Maka | Malayalam Mlym | Mandaic Mand | Manichaean Mani | Marchen Marc | "
    "Masaram_Gondi Gonm | Medefaidrin Medf | Meetei_Mayek Mtei | Mende_Kikakui Mend | Meroitic_Cursive Merc | "
    "Meroitic_Hieroglyphs Mero | Miao Plrd | Modi | Mongolian Mong | Mro Mroo | Multani Mult | Myanmar Mymr | "
    "Nabataean Nbat | Nag_Mundari Nagm | Nandinagari Nand | New_Tai_Lue Talu | Newa | Nko Nkoo | Nushu Nshu | "
    "Nyiakeng_Puachue_Hmong Hmnp | Ogham Ogam | Ol_Chiki Olck | Ol_Onal Onao | Old_Hungarian Hung | "
    "Old_Italic Ital | Old_North_Arabian Narb | Old_Permic Perm | Old_Persian Xpeo | Old_Sogdian Sogo | "
    "Old_South_Arabian Sarb | Old_Turkic Orkh | Old_Uyghur Ougr | Oriya Orya | Osage Osge | Osmanya Osma | "
    "Pahawh_Hmong Hmng | Palmyrene Palm | Pau_Cin_Hau Pauc | Phags_Pa Phag | Phoenician Phnx | "
    "Psalter_Pahlavi Phlp | Rejang Rjng | Runic Runr | Samaritan Samr | Saurashtra Saur | Sharada Shrd | "
    "Shavian Shaw | Siddham Sidd | Sidetic Sidt | SignWriting Sgnw | Sinhala Sinh | Sogdian Sogd | "
    "Sora_Sompeng Sora | Soyombo Soyo | Sundanese Sund | Sunuwar Sunu | Syloti_Nagri Sylo | Syriac Syrc | "
    "Tagalog Tglg | Tagbanwa Tagb | Tai_Le Tale | Tai_Tham Lana | Tai_Viet Tavt | Tai_Yo Tayo | Takri Takr | "
    "Tamil Taml | Tangsa Tnsa | Tangut Tang | Telugu Telu | Thaana Thaa | Thai | Tibetan Tibt | Tifinagh Tfng | "
    "Tirhuta Tirh | Todhri Todr | Tolong_Siki Tols | Toto | Tulu_Tigalari Tutg | Ugaritic Ugar | Unknown Zzzz | "
    "Vai Vaii | Vithkuqi Vith | Wancho Wcho | Warang_Citi Wara | Yezidi Yezi | Yi Yiii | "
    "Zanabazar_Square Zanb"
)

#: Binary properties (table 68): each name and alias (`Alpha`, `Alphabetic`, `space`) -> its long name.
BINARY = _table(
    "ASCII | ASCII_Hex_Digit AHex | Alphabetic Alpha | Any | Assigned | Bidi_Control Bidi_C | "
    "Bidi_Mirrored Bidi_M | Case_Ignorable CI | Cased | Changes_When_Casefolded CWCF | "
    "Changes_When_Casemapped CWCM | Changes_When_Lowercased CWL | Changes_When_NFKC_Casefolded CWKCF | "
    "Changes_When_Titlecased CWT | Changes_When_Uppercased CWU | Dash | Default_Ignorable_Code_Point DI | "
    "Deprecated Dep | Diacritic Dia | Emoji | Emoji_Component EComp | Emoji_Modifier EMod | "
    "Emoji_Modifier_Base EBase | Emoji_Presentation EPres | Extended_Pictographic ExtPict | Extender Ext | "
    "Grapheme_Base Gr_Base | Grapheme_Extend Gr_Ext | Hex_Digit Hex | IDS_Binary_Operator IDSB | "
    "IDS_Trinary_Operator IDST | ID_Continue IDC | ID_Start IDS | Ideographic Ideo | Join_Control Join_C | "
    "Logical_Order_Exception LOE | Lowercase Lower | Math | Noncharacter_Code_Point NChar | "
    "Pattern_Syntax Pat_Syn | Pattern_White_Space Pat_WS | Quotation_Mark QMark | Radical | "
    "Regional_Indicator RI | Sentence_Terminal STerm | Soft_Dotted SD | Terminal_Punctuation Term | "
    "Unified_Ideograph UIdeo | Uppercase Upper | Variation_Selector VS | White_Space WSpace space | "
    "XID_Continue XIDC | XID_Start XIDS"
)

#: The names before `=` (table 67) -> the long name and the values it takes.
VALUES: dict[str, tuple[str, dict[str, str]]] = {
    "General_Category": ("General_Category", GENERAL_CATEGORY), "gc": ("General_Category", GENERAL_CATEGORY),
    "Script": ("Script", SCRIPT), "sc": ("Script", SCRIPT),
    "Script_Extensions": ("Script_Extensions", SCRIPT), "scx": ("Script_Extensions", SCRIPT),
}

#: Binary properties ECMA-262 has and the `regex` package has not (it refuses them as unknown).
LACKING = frozenset({"Changes_When_NFKC_Casefolded"})


def in_regex(expression: str) -> str | None:
    """What the property expression `expression` (between the braces of `\\p{...}`: `L`,
    `sc=Greek`, `Alpha`) is in the syntax of `regex`, its long names spelt out
    (`General_Category=Letter`, `Script=Greek`, `Alphabetic`: `regex` reads a bare name
    loosely, `space` as its own POSIX class), or None when ECMA-262 has no such property."""
    name, equals, value = expression.partition("=")
    if equals:
        long_name, values = VALUES.get(name, ("", {}))
        return f"{long_name}={values[value]}" if value in values else None
    if expression in GENERAL_CATEGORY:
        return f"General_Category={GENERAL_CATEGORY[expression]}"
    return BINARY.get(expression)
