from gitloom.errors import Conflict


class NamespaceExists(Conflict):
    code, message = "namespace_exists", "A namespace with that name already exists."
