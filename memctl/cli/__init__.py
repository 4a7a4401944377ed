"""The memctl command line."""
