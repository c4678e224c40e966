"""What the namespaces app tells the layers above it, which it never imports.

A namespace is the source of truth; what is derived from it (the index, in
``retrieval``) sits above it and reacts. The higher app connects its receivers when it
starts (``RetrievalConfig.ready``), so the wiring is declared at the top and no
namespaces module imports upward (docs/design/README.md, "Layers").

``namespace_created``
    Sent inside the creating transaction, once the namespace's repository exists
    (``namespace=``). A receiver that raises rolls the creation back.
``namespace_deleting``
    Sent inside the deleting transaction, before the repository and the row go
    (``namespace=``, the row locked ``FOR UPDATE``). A receiver that raises keeps the
    namespace.
"""

from __future__ import annotations

from django.dispatch import Signal

namespace_created = Signal()
namespace_deleting = Signal()
