"""Accounts, memberships, API keys, authentication, brute-force throttles, and webhooks
(``accounts/webhooks/``). Design: docs/design/accounts.md."""
