"""SPARQLWrapper against a Ledgraph dataset endpoint ({api}/sparql/<ledger>), with its defaults.

Usage: sparqlwrapper_client.py <endpoint>. Prints one JSON object with what each call returned.
"""
import json
import sys

from SPARQLWrapper import JSON, N3, POST, TURTLE, XML, SPARQLWrapper

EX = "http://example.org/"
endpoint = sys.argv[1]
out = {}

# An update through the same URL (SPARQLWrapper sends update= as a form POST).
s = SPARQLWrapper(endpoint)
s.setMethod(POST)
s.setQuery(f'INSERT DATA {{ <{EX}cy> <{EX}name> "Cy" }}')
out["update"] = s.query().response.status

# SELECT as JSON and with the default (XML) format.
s = SPARQLWrapper(endpoint)
s.setQuery(f"SELECT ?n WHERE {{ ?s <{EX}name> ?n }} ORDER BY ?n")
s.setReturnFormat(JSON)
out["select_json"] = [b["n"]["value"] for b in s.query().convert()["results"]["bindings"]]
s.setReturnFormat(XML)
doc = s.query().convert()
out["select_xml"] = [n.firstChild.data for n in doc.getElementsByTagName("literal")]

# ASK.
s.setQuery(f"ASK {{ <{EX}cy> <{EX}name> \"Cy\" }}")
s.setReturnFormat(JSON)
out["ask"] = s.query().convert()["boolean"]

# CONSTRUCT with the default format (XML: RDF/XML parsed into an rdflib Graph), Turtle and N3.
construct = f"CONSTRUCT {{ ?s <{EX}label> ?n }} WHERE {{ ?s <{EX}name> ?n }}"
s = SPARQLWrapper(endpoint)
s.setQuery(construct)
g = s.query().convert()
out["construct_xml"] = sorted(str(o) for o in g.objects())
for name, fmt in (("construct_turtle", TURTLE), ("construct_n3", N3)):
    s.setReturnFormat(fmt)
    r = s.query()
    out[name] = r.response.headers.get("Content-Type")

# DESCRIBE with the default format.
s = SPARQLWrapper(endpoint)
s.setQuery(f"DESCRIBE <{EX}cy>")
out["describe_xml"] = sorted(str(o) for o in s.query().convert().objects())

print(json.dumps(out))
