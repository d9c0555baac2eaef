"""No import circle among the project's modules (issue 45): every import counts, those inside a function and
those under TYPE_CHECKING included (grimp reads both; import-linter's contracts in pyproject.toml catch the
package-level ones). A circle found is printed module by module, so that the one import to move is plain."""

import grimp

PACKAGES = ("indexer", "service", "eval", "rulesqa")


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_the_circle_finder_finds_one():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_among_the_projects_modules():
    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=False, cache_dir=None)
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    circles = _circles(edges)
    described = []
    for circle in circles:
        members = set(circle)
        arrows = [f"  {a} -> {b}" + "".join(f" (l.{d['line_number']})" for d in graph.get_import_details(
            importer=a, imported=b)) for a in circle for b in sorted(edges[a] & members)]
        described.append("\n".join([" ; ".join(circle), *arrows]))
    assert not circles, "import circles:\n" + "\n".join(described)
