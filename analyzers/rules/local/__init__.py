"""Local memory: bank conflicts, staging and reuse, how tiles are filled, barriers around them."""
