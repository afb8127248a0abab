"""No import circle in pitui: no module imports, however indirectly, one that imports it.

Every import in the source counts, as import-linter reads them (tests/test_layers.py):
those at the top of a module, those inside functions (made when the function runs) and
those under ``if TYPE_CHECKING:`` (a circle a type checker walks). A circle makes the order
modules load in matter, and hides which of two modules is the lower one. The circles found
are listed whole, each as one chain that closes on itself.
"""

from __future__ import annotations

import grimp

#: Circles being taken apart, each allowed for now as a set of modules a circle may lie
#: in, with why. The test fails once no circle lies in one of them, so that its entry goes.
KNOWN: dict[str, tuple[str, ...]] = {}


def _allowed_by(group: list[str]) -> str | None:
    """The :data:`KNOWN` entry ``group`` lies in, if any."""
    for name, prefixes in KNOWN.items():
        if all(any(m == p or (p.endswith(".") and m.startswith(p)) for p in prefixes) for m in group):
            return name
    return None


def import_graph() -> dict[str, set[str]]:
    """Each pitui module and the pitui modules it imports (any import, anywhere in it)."""
    graph = grimp.build_graph("pitui", include_external_packages=False, cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan's algorithm, without
    recursion), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(edges[root])))]
        while work:
            module, pending = work[-1]
            target = next(pending, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges.get(target, ())))))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def chain_through(edges: dict[str, set[str]], group: list[str]) -> list[str]:
    """One chain of imports inside ``group`` from its first module back to it (a breadth-first
    walk), to say where the circle runs."""
    start = group[0]
    members = set(group)
    came_from: dict[str, str] = {}
    queue = [start]
    while queue:
        module = queue.pop(0)
        for target in sorted(edges[module] & members):
            if target == start:
                chain = [module]
                while chain[-1] != start:
                    chain.append(came_from[chain[-1]])
                return [start] + chain[::-1][1:] + [start] if len(chain) > 1 else [start, start]
            if target not in came_from:
                came_from[target] = module
                queue.append(target)
    return group


def test_the_finder_sees_a_circle():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(edges) == [["a", "b", "c"]]
    assert chain_through(edges, ["a", "b", "c"]) == ["a", "b", "c", "a"]


def test_the_graph_holds_imports_inside_functions_and_for_type_checking():
    edges = import_graph()
    # (a lazy import in a function, and one under TYPE_CHECKING, as the source has them)
    assert "pitui.core.read.stream" in edges["pitui.core.read.open"]
    assert "pitui.core.store.listing_decoder" in edges["pitui.core.store.listing_scan"]


def test_no_import_circle_in_pitui():
    edges = import_graph()
    found = circles(edges)
    new = [group for group in found if _allowed_by(group) is None]
    assert not new, "import circles (each: its modules, then one chain through them):\n" + "\n".join(
        f"{', '.join(group)}\n  {' -> '.join(chain_through(edges, group))}" for group in new)
    gone = sorted(set(KNOWN) - {_allowed_by(group) for group in found})
    assert not gone, f"no circle left in {gone}: take it out of KNOWN"
