"""The questions log: what players ask, what they were told, and whether it helped.

schema.py declares the tables (SQLAlchemy Core), store.py reads and writes them, writer.py takes the
writes off the request path, report.py turns the log into "what the rules don't answer".
"""
