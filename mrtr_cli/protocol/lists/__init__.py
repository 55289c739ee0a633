"""What a server lists (2026-07-28 server/utilities/pagination and caching): paginated
list methods (`listing`), the list cache in the state directory (`cache`), the tool
catalog a call is typed and mirrored into headers by (`catalog`: `ToolCatalog`), and
resource templates (`templates`).
"""

from mrtr_cli.protocol.lists.catalog import ToolCatalog

__all__ = ["ToolCatalog"]
