"""memctl: readable long-term memory for AI agents.

Importing the package stays cheap: nothing here pulls in fastembed or whoosh.
"""

__version__ = "0.1.0"
