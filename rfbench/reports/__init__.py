"""Paper reproductions: tables and figures side by side with the published values."""
