"""Shared fixtures. Tests run on SQLite by default and on PostgreSQL when DATABASE_URL is set."""
