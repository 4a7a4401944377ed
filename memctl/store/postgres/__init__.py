"""The PostgreSQL backend: the same memories as rows, searched in SQL (pgvector for the vectors).

`repo.PostgresRepository` implements the Repository protocol and `search.PostgresSearch` the
SearchIndex protocol; `schema` holds the tables and their migrations, `connect` the connection pools.
psycopg is imported only by code that talks to a database, so folders never load it.
"""
