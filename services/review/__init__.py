"""The reviewer's decisions and journals: proposals, undo/redo, the hash chain, journal files."""
