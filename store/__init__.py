"""What happened: the SQLite schema, its migrations, and the queries over it."""

from store.db import SCHEMA_VERSION, open_db
from store.errors import ForeignDatabase, InvalidValue, MissingDatabase, NotFound, StoreError

__all__ = ["SCHEMA_VERSION", "open_db", "StoreError", "MissingDatabase", "ForeignDatabase",
           "NotFound", "InvalidValue"]
