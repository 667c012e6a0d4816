"""What the store refuses, as exceptions the CLI can print as one sentence."""


class StoreError(Exception):
    """Base of every error the store raises on purpose."""


class MissingDatabase(StoreError):
    """The database file does not exist and we were told not to create it."""


class ForeignDatabase(StoreError):
    """The file is not ours: not SQLite, another program's tables, a newer schema, or another GPU/problem."""


class NotFound(StoreError):
    """A run, experiment or shelf entry id that is not in the database."""


class InvalidValue(StoreError):
    """A field the schema does not have, or a value outside a closed set (outcome, kind, status)."""


class RunInProgress(StoreError):
    """Another process's run is live in this database: a second run would interleave with it."""


class DamagedDatabase(StoreError):
    """The file is ours (its header and schema read) but its data pages are not: SQLite's check fails."""


class UnwritableDatabase(StoreError):
    """The database cannot be created or written where it was asked for (a read-only file or folder)."""
