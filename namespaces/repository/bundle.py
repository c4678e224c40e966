"""Importing an untrusted git bundle, all or nothing.

Everything about the bundle is checked before anything is uploaded: its header, the
declared sizes in its pack (no decompression bombs), every object, a complete history,
and only plain files with safe paths.
"""

from __future__ import annotations

import hashlib
import io
import stat
import zlib
from collections.abc import Callable, Mapping

from dulwich.errors import ObjectFormatException
from dulwich.object_format import DEFAULT_OBJECT_FORMAT
from dulwich.objects import Blob, Commit, ShaFile, Tag, Tree
from dulwich.pack import OFS_DELTA, REF_DELTA, PackData, PackInflater, unpack_object_at
from dulwich.refs import check_ref_format

from gitloom.core.errors import InvalidInput, InvalidPath
from namespaces.errors import BundleTooLarge, InvalidBundle, UnrelatedHistory
from namespaces.repository.commits import landed, unchanged
from namespaces.repository.manifest import (
    LoadedHead,
    Manifest,
    NewHead,
    load_head,
    now_iso,
    update_head,
)
from namespaces.repository.packs import Objects, PackRef, build_pack
from namespaces.repository.snapshot import Snapshot
from namespaces.repository.trees import (
    ALLOWED_FILE_MODES,
    EMPTY_TREE,
    Changes,
    diff_trees,
    make_commit,
    reachable,
    reachable_tree,
)
from namespaces.repository.values import (
    BRANCH,
    DEFAULT_AUTHOR,
    MAX_IMPORT_OBJECT_BYTES,
    MAX_IMPORT_OBJECTS,
    MAX_IMPORT_TOTAL_BYTES,
    SHA_RE,
    CommitResult,
    check_author,
    check_prefix,
    format_message,
    validate_path,
)
from namespaces.storage import object_store

# The header lines of the bundle versions this module reads.
BUNDLE_SIGNATURES = (b"# v2 git bundle", b"# v3 git bundle")


def _read_varint_header(contents: bytes, offset: int) -> tuple[int, int]:
    """Type and declared size of the pack entry at ``offset``."""
    if offset >= len(contents):
        raise InvalidBundle("The bundle's pack is truncated.")
    byte = contents[offset]
    type_num, size, shift = (byte >> 4) & 7, byte & 15, 4
    while byte & 0x80:
        offset += 1
        if offset >= len(contents) or shift > 56:
            raise InvalidBundle("The bundle's pack is malformed.")
        byte = contents[offset]
        size |= (byte & 0x7F) << shift
        shift += 7
    return type_num, size


def _delta_target_size(delta: bytes) -> int:
    index = 0
    for _ in range(2):  # source size, then target size
        size, shift = 0, 0
        while True:
            if index >= len(delta) or shift > 56:
                raise InvalidBundle("The bundle holds a malformed delta.")
            byte = delta[index]
            index += 1
            size |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
    return size


def _scan_pack(
    contents: bytes,
    *,
    max_object_bytes: int,
    max_total_bytes: int,
    max_objects: int,
    validate_blob_size: Callable[[int], None] | None = None,
) -> int:
    """Walk an untrusted pack checking every declared size before anything is
    inflated in full: a small bundle must not expand into gigabytes. A whole (not
    deltified) blob's size goes to ``validate_blob_size`` first: the caller's limit for
    one file is the reason it names, not the pack's limit for one object."""
    if len(contents) < 32 or contents[:4] != b"PACK":
        raise InvalidBundle("The bundle holds no pack.")
    version = int.from_bytes(contents[4:8], "big")
    count = int.from_bytes(contents[8:12], "big")
    if version not in (2, 3):
        raise InvalidBundle("Unsupported pack version.")
    if count > max_objects:
        raise BundleTooLarge("The bundle holds too many objects.")
    if hashlib.sha1(contents[:-20], usedforsecurity=False).digest() != contents[-20:]:
        raise InvalidBundle("The bundle's pack checksum does not match.")
    offset, total = 12, 0
    for _ in range(count):
        type_num, size = _read_varint_header(contents, offset)
        if type_num not in (1, 2, 3, 4, OFS_DELTA, REF_DELTA):
            raise InvalidBundle("The bundle holds an unknown object type.")
        if type_num == Blob.type_num and validate_blob_size is not None:
            validate_blob_size(size)
        if size > max_object_bytes:
            raise BundleTooLarge("An object in the bundle is too large.")
        try:
            unpacked, offset = unpack_object_at(contents, offset, DEFAULT_OBJECT_FORMAT.hash_func)
        except (zlib.error, AssertionError, IndexError, ValueError) as exc:
            raise InvalidBundle(f"The bundle's pack is malformed: {exc}") from exc
        if type_num in (OFS_DELTA, REF_DELTA):
            size = _delta_target_size(b"".join(unpacked.decomp_chunks))
            if size > max_object_bytes:
                raise BundleTooLarge("An object in the bundle is too large.")
        total += size
        if total > max_total_bytes:
            raise BundleTooLarge("The bundle expands too far.")
        if offset > len(contents) - 20:
            raise InvalidBundle("The bundle's pack is truncated.")
    if offset != len(contents) - 20:
        raise InvalidBundle("The bundle's pack has trailing data.")
    return count


def is_bundle(data: bytes) -> bool:
    """Whether ``data`` starts like a git bundle this module reads (v2 or v3); what an
    import without a stated format goes by."""
    return data.startswith(BUNDLE_SIGNATURES)


def _parse_bundle(data: bytes) -> tuple[dict[bytes, bytes], list[bytes], bytes]:
    """(refs, prerequisites, pack bytes) from a v2/v3 bundle."""
    if not isinstance(data, bytes | bytearray):
        raise InvalidBundle("A bundle must be bytes.")
    data = bytes(data)
    header_end = data.find(b"\n\n")
    if header_end < 0 or header_end > 1 << 20:
        raise InvalidBundle("Not a git bundle.")
    lines = data[:header_end].split(b"\n")
    if lines[0] not in BUNDLE_SIGNATURES:
        raise InvalidBundle("Not a git bundle (v2 or v3).")
    refs: dict[bytes, bytes] = {}
    prerequisites: list[bytes] = []
    for line in lines[1:]:
        if line.startswith(b"@"):
            if lines[0] != b"# v3 git bundle":
                raise InvalidBundle("Capabilities in a v2 bundle.")
            key, _, value = line[1:].partition(b"=")
            if key == b"object-format" and value != b"sha1":
                raise InvalidBundle("Only SHA-1 repositories can be imported.")
            if key not in (b"object-format", b"filter"):
                raise InvalidBundle("Unknown bundle capability.")
            if key == b"filter":
                raise InvalidBundle("Partial bundles cannot be imported.")
            continue
        if line.startswith(b"-"):
            sha = line[1:41]
            if not SHA_RE.fullmatch(sha.decode("ascii", "replace")):
                raise InvalidBundle("Malformed bundle prerequisite.")
            prerequisites.append(sha)
            continue
        sha, _, ref = line.partition(b" ")
        if not SHA_RE.fullmatch(sha.decode("ascii", "replace")) or not ref:
            raise InvalidBundle("Malformed bundle reference.")
        if ref != b"HEAD" and not check_ref_format(ref):
            # git's own rules (git check-ref-format): no '..', spaces, control characters...
            shown = ref[:100].decode("utf-8", "backslashreplace")
            raise InvalidBundle(f"The bundle names an invalid reference: {shown!r}.")
        refs[ref] = sha
    if not refs:
        raise InvalidBundle("The bundle has no references.")
    return refs, prerequisites, data[header_end + 2 :]


def _bundle_head(refs: dict[bytes, bytes]) -> bytes:
    for name in (b"HEAD", BRANCH, b"refs/heads/master"):
        if name in refs:
            return refs[name]
    if len(set(refs.values())) == 1:
        return next(iter(refs.values()))
    raise InvalidBundle(
        "The bundle has several branches and no HEAD; bundle one branch.",
    )


def _inflate_bundle(pack: bytes, objects: Objects) -> dict[bytes, ShaFile]:
    def resolve_ext_ref(sha: bytes) -> tuple[int, bytes]:
        # Thin bundles (with prerequisites) may delta against objects we hold.
        key = sha if len(sha) == 40 else sha.hex().encode()
        return objects.get_raw(key)

    data = PackData.from_file(io.BytesIO(pack), DEFAULT_OBJECT_FORMAT)
    inflated: dict[bytes, ShaFile] = {}
    try:
        for obj in PackInflater.for_pack_data(data, resolve_ext_ref=resolve_ext_ref):
            try:
                obj.check()
            except ObjectFormatException as exc:
                raise InvalidBundle(f"The bundle holds a malformed object: {exc}") from exc
            inflated[obj.id] = obj
    except InvalidInput:
        raise
    except Exception as exc:  # unresolved deltas, corrupt entries
        raise InvalidBundle(f"The bundle's pack is unreadable: {exc}") from exc
    finally:
        data.close()
    return inflated


def _verify_bundle_history(objects: Objects, head: bytes) -> None:
    """Every commit, tree and blob reachable from the bundle head exists, and every
    tree holds only plain files and folders with safe names."""
    seen: set[bytes] = set()
    commits = [head]
    while commits:
        sha = commits.pop()
        if sha in seen:
            continue
        seen.add(sha)
        try:
            obj = objects[sha]
        except KeyError:
            raise InvalidBundle("The bundle is missing a commit.") from None
        if isinstance(obj, Tag):
            raise InvalidBundle("Tags cannot be imported; bundle a branch.")
        if not isinstance(obj, Commit):
            raise InvalidBundle("A bundle reference is not a commit.")
        commits.extend(obj.parents)
        trees: list[tuple[bytes, str]] = [(obj.tree, "")]
        while trees:
            tree_sha, base = trees.pop()
            if tree_sha in seen:
                continue
            seen.add(tree_sha)
            try:
                tree = objects[tree_sha]
            except KeyError:
                raise InvalidBundle("The bundle is missing a tree.") from None
            if not isinstance(tree, Tree):
                raise InvalidBundle("A tree entry is not a tree.")
            for entry in tree.iteritems():
                try:
                    name = entry.path.decode("utf-8")
                except UnicodeDecodeError:
                    raise InvalidPath("A file name is not UTF-8.") from None
                path = base + name
                validate_path(path)
                if stat.S_ISDIR(entry.mode):
                    trees.append((entry.sha, path + "/"))
                elif entry.mode in ALLOWED_FILE_MODES:
                    if entry.sha not in seen:
                        if entry.sha not in objects or not isinstance(objects[entry.sha], Blob):
                            raise InvalidBundle(
                                f"The bundle is missing the content of {path!r}.",
                            )
                        seen.add(entry.sha)
                else:
                    raise InvalidPath(
                        f"{path!r} is not a plain file (symlinks and submodules are refused).",
                    )


def _history_files(objects: Objects, head: bytes, known: Objects) -> list[tuple[str, bytes]]:
    """Every distinct ``(path, blob)`` in the commits reachable from ``head`` that the
    namespace does not have yet (``known``): what an import brings into ``/history``.
    A subtree seen at the same path is not walked again."""
    pairs: dict[tuple[str, bytes], None] = {}
    seen_commits: set[bytes] = set()
    seen_trees: set[tuple[bytes, str]] = set()
    commits = [head]
    while commits:
        sha = commits.pop()
        if sha in seen_commits or sha in known:
            continue
        seen_commits.add(sha)
        commit = objects.commit(sha)
        commits.extend(commit.parents)
        trees = [(commit.tree, "")]
        while trees:
            tree_sha, base = trees.pop()
            if (tree_sha, base) in seen_trees:
                continue
            seen_trees.add((tree_sha, base))
            for entry in objects[tree_sha].iteritems():
                path = base + entry.path.decode("utf-8")
                if stat.S_ISDIR(entry.mode):
                    trees.append((entry.sha, path + "/"))
                else:
                    pairs[(path, entry.sha)] = None
    return list(pairs)


def _is_ancestor(objects: Objects, ancestor: bytes, descendant: bytes) -> bool:
    seen: set[bytes] = set()
    todo = [descendant]
    while todo:
        sha = todo.pop()
        if sha == ancestor:
            return True
        if sha in seen:
            continue
        seen.add(sha)
        todo.extend(objects.commit(sha).parents)
    return False


def bundle_check(
    data: bytes,
    *,
    validate_blob_size: Callable[[int], None] | None = None,
    max_object_bytes: int = MAX_IMPORT_OBJECT_BYTES,
    max_total_bytes: int = MAX_IMPORT_TOTAL_BYTES,
    max_objects: int = MAX_IMPORT_OBJECTS,
) -> None:
    """The bundle's header, references and declared sizes, without inflating it: fast
    enough for a request, so a broken or oversized bundle is refused before a job is
    queued for it."""
    refs, _prerequisites, pack = _parse_bundle(data)
    _bundle_head(refs)
    _scan_pack(
        pack,
        max_object_bytes=max_object_bytes,
        max_total_bytes=max_total_bytes,
        max_objects=max_objects,
        validate_blob_size=validate_blob_size,
    )


def repository_import_bundle(
    *,
    prefix: str,
    data: bytes,
    replace: bool = False,
    message: str = "Import bundle",
    trailers: Mapping[str, str] | None = None,
    author: str = DEFAULT_AUTHOR,
    validate: Callable[[Snapshot], None] | None = None,
    validate_file: Callable[[str, bytes], None] | None = None,
    validate_blob_size: Callable[[int], None] | None = None,
    max_object_bytes: int = MAX_IMPORT_OBJECT_BYTES,
    max_total_bytes: int = MAX_IMPORT_TOTAL_BYTES,
    max_objects: int = MAX_IMPORT_OBJECTS,
) -> CommitResult:
    """Bring a git bundle's branch into the namespace, all or nothing.

    The bundle is checked before anything is uploaded: pack checksum, declared sizes
    (no decompression bombs), every object well-formed, the history complete, only
    plain files with safe paths, then ``validate_file`` (the caller's check of one file)
    on every version of every file in the bundle's commits that the namespace does not
    have yet (older commits too: they show in ``/history``), then ``validate`` (the
    caller's checks across files) on the bundle head's snapshot.  Then, by the
    namespace's state:

    - fresh (only the root commit ``repository_init`` made, no files): the bundle's
      history becomes the namespace's history;
    - the head is in the bundle's history: fast-forward to the bundle head;
    - the bundle head is already in the namespace's history: nothing to do;
    - otherwise (the histories are unrelated or have diverged): with ``replace``, one
      new commit on the head whose tree is the bundle head's tree (the bundle replaces
      the files; earlier versions stay in history); without, ``UnrelatedHistory``, as
      the namespace's files the bundle lacks would be dropped.
    """
    check_prefix(prefix)
    full_message = format_message(message, trailers or {})
    author_bytes = check_author(author)
    refs, prerequisites, pack = _parse_bundle(data)
    bundle_head = _bundle_head(refs)
    _scan_pack(
        pack,
        max_object_bytes=max_object_bytes,
        max_total_bytes=max_total_bytes,
        max_objects=max_objects,
        validate_blob_size=validate_blob_size,
    )
    store = object_store()
    first = load_head(store, prefix)
    for sha in prerequisites:
        if sha not in first.objects:
            raise InvalidBundle("The bundle needs commits this namespace does not have.")
    inflated = _inflate_bundle(pack, first.objects)

    def with_bundle(objects: Objects) -> Objects:
        """The namespace's objects plus the bundle's."""
        combined = Objects(objects.packs)
        combined.new.update(inflated)
        return combined

    checked = with_bundle(first.objects)
    _verify_bundle_history(checked, bundle_head)
    bundle_tree = checked.commit(bundle_head).tree
    if validate_file is not None:
        for path, blob in _history_files(checked, bundle_head, first.objects):
            validate_file(path, checked[blob].data)
    if validate is not None:
        validate(Snapshot(commit=bundle_head.decode(), tree=bundle_tree.decode(), objects=checked))

    def step(head: LoadedHead, attempt: int) -> NewHead[CommitResult] | CommitResult:
        manifest, objects = head.manifest, head.objects
        bundle_objects = with_bundle(objects)
        current = objects.commit(manifest.commit.encode())
        fresh = not current.parents and current.tree.decode() == EMPTY_TREE
        retired = manifest.retired
        if fresh:
            # Adopt the bundle's history whole; the root commit we made is retired.
            new_head = bundle_head
            wanted = set(reachable(bundle_objects, bundle_head))
            records = [bundle_objects[s] for s in sorted(wanted)]
            now = now_iso()
            retired = manifest.retired + tuple((p.name, now) for p in manifest.packs)
            keep: tuple[PackRef, ...] = ()
        elif bundle_head == current.id or _is_ancestor(bundle_objects, bundle_head, current.id):
            return unchanged(head, attempts=attempt)
        elif _is_ancestor(bundle_objects, current.id, bundle_head):
            new_head = bundle_head
            wanted = set(reachable(bundle_objects, bundle_head))
            records = [inflated[s] for s in sorted(wanted) if s not in objects]
            keep = manifest.packs
        elif bundle_tree == current.tree:
            # The files are already exactly the bundle's (it was imported before on top
            # of other history): no empty commit.
            return unchanged(head, attempts=attempt)
        elif not replace:
            raise UnrelatedHistory()
        else:
            commit = make_commit(
                tree=bundle_tree, parents=[current.id], message=full_message, author=author_bytes
            )
            new_head = commit.id
            tree_objects = set(reachable_tree(bundle_objects, bundle_tree))
            records = [inflated[s] for s in sorted(tree_objects) if s not in objects]
            records.append(commit)
            bundle_objects.new[commit.id] = commit
            keep = manifest.packs
        new_pack = build_pack(records)
        new = Manifest(commit=new_head.decode(), packs=(new_pack.ref, *keep), retired=retired)

        def on_landed() -> CommitResult:
            changes = diff_trees(bundle_objects, current.tree.decode(), bundle_tree.decode())
            return landed(head, new, new_pack, Changes.of(changes), attempts=attempt)

        return NewHead(new, new_pack, on_landed)

    return update_head(store, prefix, step, read=load_head, head=first)
