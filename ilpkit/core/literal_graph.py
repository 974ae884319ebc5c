"""The Bayesian-network structure over a bottom clause's literals (dissertation Table 5.2).

Each body literal is a Boolean node ("the literal is in the clause"); the head is not a node.
Following CONSTRUCT_NETWORK, literals are added in groups: a group holds the literals whose
input variables are all *reached* (head inputs, or outputs of literals already in the
network); each literal of a group is added in turn, linked from every literal already in the
network that outputs one of its non-head input variables; then the group's outputs become
reached. Arcs from a literal later in the bottom clause to an earlier one are dropped (5.1.1:
"I drop arcs that would link a literal that appears lower in the bottom clause ... to one
higher"), so the graph is acyclic and its arcs agree with legality (an input must be supplied
by an earlier literal, :mod:`ilpkit.core.refine`).

Each arc records the variables through which it supplies its child (attribute ``vars``): the
parents of node N that supply its input variable v form the set S_v(N) of the noisy-OR of
5.1.2. Literals whose inputs are never reached get no group (attribute ``group`` = -1) and no
parents for the missing variables.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ilpkit.core.bottom import BottomClause
from ilpkit.errors import ConfigError
from ilpkit.prolog.terms import to_prolog

if TYPE_CHECKING:
    import networkx as nx
GRAPH_SUFFIXES = (".graphml", ".dot", ".gv")


def literal_network(bottom: BottomClause) -> nx.DiGraph:
    """The Table 5.2 network of ``bottom``: nodes 0..n-1 (literal indices), arcs with
    ``vars`` (supplied variable ids); node attributes ``literal``, ``group``, ``needs``."""
    import networkx as nx  # networkx loads only when a literal graph is built

    heads = bottom.head_inputs
    needs = [tuple(sorted({v for v in lit.inputs if v not in heads})) for lit in bottom.literals]
    graph = nx.DiGraph(head=to_prolog(bottom.head))
    reached = set(heads)
    body = list(range(len(bottom.literals)))
    in_net: list[int] = []
    group_no = 0
    while body:
        group = [k for k in body if all(v in reached for v in bottom.literals[k].inputs)]
        if not group:
            break
        for k in group:
            graph.add_node(k, literal=to_prolog(bottom.literals[k].term), group=group_no,
                           needs=needs[k])  # fmt: skip
            for j in in_net:
                supplied = tuple(v for v in needs[k] if v in bottom.literals[j].outputs)
                if supplied and j < k:  # later-to-earlier arcs are dropped
                    graph.add_edge(j, k, vars=supplied)
            in_net.append(k)
        chosen = set(group)
        body = [k for k in body if k not in chosen]
        for k in group:
            reached.update(bottom.literals[k].outputs)
        group_no += 1
    for k in body:  # never reachable: isolated, never legal
        graph.add_node(k, literal=to_prolog(bottom.literals[k].term), group=-1, needs=needs[k])
    return graph


def check_graph_path(path: Path) -> None:
    """Refuse a graph file name whose format :func:`write_graph` cannot tell."""
    if path.suffix.lower() not in GRAPH_SUFFIXES:
        raise ConfigError(f"--graph {path}: the file name must end in {', '.join(GRAPH_SUFFIXES)}")


def write_graph(graph: nx.DiGraph, path: Path) -> None:
    """Write ``graph`` as GraphML (``.graphml``) or Graphviz DOT (``.dot``/``.gv``)."""
    import networkx as nx

    check_graph_path(path)
    suffix = path.suffix.lower()
    plain = nx.DiGraph(head=str(graph.graph.get("head", "")))
    for k, data in graph.nodes(data=True):
        plain.add_node(k, literal=data["literal"], group=data["group"],
                       needs=",".join(map(str, data["needs"])))  # fmt: skip
    for j, k, data in graph.edges(data=True):
        plain.add_edge(j, k, vars=",".join(map(str, data["vars"])))
    if suffix == ".graphml":
        nx.write_graphml(plain, path)
        return
    path.write_text(_dot(plain), encoding="utf-8")


def _dot(graph: nx.DiGraph) -> str:
    def quote(text: object) -> str:
        return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["digraph bottom_clause {", f"  label={quote(graph.graph['head'])};"]
    for k, data in graph.nodes(data=True):
        lines.append(f"  {k} [label={quote(data['literal'])}, group={data['group']}];")
    for j, k, data in graph.edges(data=True):
        lines.append(f"  {j} -> {k} [label={quote('vars ' + data['vars'])}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
