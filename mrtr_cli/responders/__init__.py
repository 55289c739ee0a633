"""Input responders: answer files, `-a` flags, roots, sampling sources and the terminal."""
