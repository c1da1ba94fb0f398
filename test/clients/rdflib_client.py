"""rdflib against Ledgraph: SPARQLUpdateStore on the dataset endpoint, Graph Store reads, and
rdflib's own SPARQL engine federating to Ledgraph with SERVICE.

Usage: rdflib_client.py <api> <ledger>. Prints one JSON object with what each call returned.
"""
import json
import sys

from rdflib import ConjunctiveGraph, Dataset, Graph, Literal, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLUpdateStore

api, ledger = sys.argv[1], sys.argv[2]
endpoint = f"{api}/sparql/{ledger}"
EX = "http://example.org/"
out = {}

# A named Graph over the SPARQL endpoint: add a triple (INSERT DATA { GRAPH ... }), then query it
# through the same URL (rdflib scopes reads with default-graph-uri).
store = SPARQLUpdateStore(query_endpoint=endpoint, update_endpoint=endpoint)
g = Graph(store=store, identifier=URIRef(EX + "people"))
g.add((URIRef(EX + "dee"), URIRef(EX + "name"), Literal("Dee")))
out["query"] = sorted(str(r.n) for r in g.query(f"SELECT ?n WHERE {{ ?s <{EX}name> ?n }}"))
out["ask"] = bool(g.query(f'ASK {{ <{EX}dee> <{EX}name> "Dee" }}').askAnswer)
out["triples"] = len(list(g.triples((None, URIRef(EX + "name"), None))))
# The whole store: the default graph (SPARQL's default graph of the ledger).
cg = ConjunctiveGraph(store=store)
out["default_graph"] = sorted(str(r.n) for r in cg.query(f"SELECT ?n WHERE {{ ?s <{EX}name> ?n }}"))

# Graph Store Protocol reads: one graph as Turtle, the whole dataset as TriG.
local = Graph()
local.parse(f"{api}/data/{ledger}?default", format="turtle")
out["gsp_default"] = sorted(str(o) for o in local.objects(None, URIRef(EX + "name")))
ds = Dataset()
ds.parse(f"{api}/data/{ledger}", format="trig")
# (rdflib files the default graph's triples under the source URL.)
out["gsp_dataset_graphs"] = sorted(str(c.identifier) for c in ds.contexts() if len(c) > 0 and not str(c.identifier).startswith(api))

# rdflib's engine evaluates SERVICE by sending the inner pattern to Ledgraph (rdflib 6.1 drops
# plain string literals of a SERVICE answer, so this reads a typed one).
local = Graph()
local.add((URIRef(EX + "ana"), URIRef(EX + "team"), Literal("blue")))
res = local.query(f"""SELECT ?team ?age WHERE {{
  ?s <{EX}team> ?team .
  SERVICE <{endpoint}> {{ ?s <{EX}age> ?age }}
}}""")
out["service"] = sorted([str(r.team), r.age.toPython()] for r in res)

print(json.dumps(out))
