"""The groups of records deduplication forms: a union-find that refuses a merge the records'
identifiers, places or notice kinds contradict, and attaches notices and earlier versions."""

from __future__ import annotations

from scholargraph.dedup.keys import Keys
from scholargraph.dedup.rules import compare_places, has_page_range
from scholargraph.identifiers import preprint_server, without_version

SINGLE_VALUED = ("pmid", "pmcid", "arxiv", "doi")
"""Identifier kinds a work has at most one of (preprint DOIs aside): two values veto a merge."""


class UnionFind:
    """Groups of record indices, refusing a union that would join conflicting identifiers."""

    def __init__(self, keys: list[Keys]) -> None:
        self.keys = keys
        self.parent = list(range(len(keys)))
        self.identifiers: list[dict[str, set[str]]] = [
            {kind: {value} for kind, value in key.identifiers.items()} for key in keys
        ]
        self.versions = [{(source, key.version) for source in key.sources} for key in keys]
        """(source, version) of each group's records ('' for the published version, else the
        preprint server): a source lists a work once per version, so a fuzzy match never joins
        two records of one source and version (identifiers may)."""
        self.members: list[list[int]] = [[index] for index in range(len(keys))]
        self.links: dict[int, tuple[str, str]] = {}
        """For each record joined to another, the rule and detail of its first successful link."""
        self.attached: dict[int, tuple[str, str]] = {}
        """For each record attached to a work as its notice or an earlier version, the rule and
        detail that did it."""
        self.attached_with: dict[int, int] = {}
        """For each attached record, the group it was attached with (the records of one notice)."""

    def find(self, index: int) -> int:
        while self.parent[index] != index:
            self.parent[index] = self.parent[self.parent[index]]
            index = self.parent[index]
        return index

    def union(self, i: int, j: int, rule: str, detail: str, by_identifier: bool = True) -> None:
        root_i, root_j = self.find(i), self.find(j)
        if root_i == root_j or self._conflict(root_i, root_j):
            return
        if not by_identifier and (self.versions[root_i] & self.versions[root_j]
                                  or self._apart(root_i, root_j)):
            return
        self._join(root_i, root_j)
        self.links.setdefault(i, (rule, detail))
        self.links.setdefault(j, (rule, detail))

    def attachable(self, index: int) -> bool:
        """Whether the group of ``index`` holds only notices and one-page or unpaged records,
        so attaching it to a work cannot join two articles."""
        return all(self.keys[member].notice in ("erratum", "reply")
                   or not has_page_range(self.keys[member])
                   for member in self.members[self.find(index)])

    def attach(self, item: int, work: int, rule: str, detail: str) -> None:
        """Join the group of ``item`` to the work of ``work`` as its notices (or its earlier
        versions). The identifier veto does not apply: a notice, like each version of a
        Cochrane review, has its own PMID and DOI. A record already attached (an earlier
        version's earlier version) keeps the rule and evidence that attached it first."""
        item_root, work_root = self.find(item), self.find(work)
        if item_root == work_root:
            return
        for member in self.members[item_root]:
            self.attached.setdefault(member, (rule, detail))
            self.attached_with.setdefault(member, item_root)
        self._join(item_root, work_root)

    def _join(self, root_i: int, root_j: int) -> None:
        keep, drop = min(root_i, root_j), max(root_i, root_j)
        self.parent[drop] = keep
        self.versions[keep] |= self.versions[drop]
        self.members[keep] += self.members[drop]
        for kind, values in self.identifiers[drop].items():
            self.identifiers[keep].setdefault(kind, set()).update(values)

    def _conflict(self, root_i: int, root_j: int) -> bool:
        """Whether the groups hold two values of an identifier a work has one of: two PMIDs,
        two journal DOIs, or two DOIs of one preprint server (other than two versions of one
        preprint). A preprint server's DOI beside a journal's is a preprint and its article."""
        ids_i, ids_j = self.identifiers[root_i], self.identifiers[root_j]
        for kind in SINGLE_VALUED:
            values_i, values_j = ids_i.get(kind, set()), ids_j.get(kind, set())
            if kind == "doi":
                servers_i, servers_j = _doi_registrars(values_i), _doi_registrars(values_j)
                if any(servers_i[server].isdisjoint(servers_j[server])
                       for server in servers_i.keys() & servers_j.keys()):
                    return True
                continue
            if values_i and values_j and not values_i & values_j:
                return True
        return False

    def _apart(self, root_i: int, root_j: int) -> bool:
        """Whether a probable link would put into one group records printed at conflicting
        places or notices of different kinds (a chain through a record that lacks pages)."""
        return any(
            compare_places(self.keys[x], self.keys[y]) == "conflict"
            or self.keys[x].notice != self.keys[y].notice
            for x in self.members[root_i] for y in self.members[root_j])


def _doi_registrars(dois: set[str]) -> dict[str, set[str]]:
    """DOIs by who registered them: each preprint server apart ('SSRN'), journals together
    (''), a preprint's DOI without its version suffix."""
    by_server: dict[str, set[str]] = {}
    for doi in dois:
        server = preprint_server(doi) or ""
        by_server.setdefault(server, set()).add(without_version(doi) if server else doi)
    return by_server
