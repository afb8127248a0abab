"""Reading one session file, read-only: its lines, its skeleton and its entries on demand."""
