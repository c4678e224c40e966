"""Webhooks: signed HTTP deliveries of what happens in an account's memory.

    models.py     endpoints, events (the outbox), deliveries and their attempts
    scope.py      the account boundary in Postgres (row-level security)
    events.py     webhook_emit(): an event and its deliveries, in the caller's transaction
    services.py   endpoints registered, changed, deleted; a delivery sent again
    selectors.py  endpoints and deliveries of one account
    signing.py    the Standard Webhooks signature, the signing secret encrypted at rest
    outbound.py   the one module that calls a receiver (address checks, timeouts, limits)
    delivery.py   the queue's side: claim due deliveries, send, back off, disable
    lane.py       the queue of their own that deliveries run on, beside the jobs'

Events are written by the services that make the change (namespaces, memories), in the
transaction that makes it, so no change is announced that did not happen and none that
happened goes unannounced. Deliveries run on their own django-q2 cluster, so a slow
receiver never holds a worker a job is waiting for. docs/API.md, "Webhooks", is the
contract.
"""
