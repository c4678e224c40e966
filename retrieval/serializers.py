"""The memory file's header as the API answers it, in one place.

``/v1/memories/{path}`` (``memories.apis.serializers.MemoryDetailSerializer``) and
``/v1/retrieve`` (``retrieval.apis.ResultSerializer``) both answer a memory's header
fields; both read them from the object's ``memory``, the format's own ``Memory`` (a
``MemoryFile`` there, a ``Hit`` here), through this serializer.
"""

from __future__ import annotations

from rest_framework import serializers

from namespaces.memory_format import TIERS


class MemoryLinkSerializer(serializers.Serializer):
    type = serializers.CharField(help_text="the kind of link, e.g. `same-trip`")
    path = serializers.CharField(help_text="the linked memory's path")

    class Meta:
        ref_name = "MemoryLink"


# No docstring: drf-spectacular would give it to every subclass's schema.
class MemoryHeaderSerializer(serializers.Serializer):
    # The header fields; a subclass adds its own and names the order of all in
    # `field_order` (DRF would put a base class's fields first).
    field_order: tuple[str, ...] = ()

    tier = serializers.ChoiceField(choices=list(TIERS), source="memory.tier")
    tags = serializers.ListField(child=serializers.CharField(), source="memory.tags")
    created = serializers.DateTimeField(source="memory.created")
    updated = serializers.DateTimeField(source="memory.updated")
    confidence = serializers.FloatField(allow_null=True, source="memory.confidence")
    cues = serializers.ListField(child=serializers.CharField(), source="memory.cues")
    related = MemoryLinkSerializer(many=True, source="memory.related")
    sources = serializers.ListField(child=serializers.CharField(), source="memory.sources")

    def get_fields(self):
        fields = super().get_fields()
        if not self.field_order:
            return fields
        assert set(self.field_order) == set(fields), "field_order must name every field"
        return {name: fields[name] for name in self.field_order}
