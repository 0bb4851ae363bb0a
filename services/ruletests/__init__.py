"""Rule tests (`evalkit test`): loading, running, explaining and updating cases."""
