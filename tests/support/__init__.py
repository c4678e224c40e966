"""Test helpers that stand up real services (the scripted model server)."""
