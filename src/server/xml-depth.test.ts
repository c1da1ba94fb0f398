import { afterEach, describe, expect, it } from 'vitest';
import { setInputLimits } from '../core/limits.js';
import { checkXmlDepth, xmlElementDepth } from './xml-depth.js';

describe('xmlElementDepth', () => {
  afterEach(() => setInputLimits({}));

  it('counts open elements, not self-closing ones or closed siblings', () => {
    expect(xmlElementDepth('<a><b/><c><d></d></c></a>')).toBe(3);
    expect(xmlElementDepth('<?xml version="1.0"?><a></a><b></b>')).toBe(1);
  });

  it('skips comments, CDATA, declarations and quoted attribute values', () => {
    expect(xmlElementDepth('<a><!-- <b><c><d> --><![CDATA[<e><f>]]></a>')).toBe(1);
    expect(xmlElementDepth('<!DOCTYPE a [ <!ENTITY x "<b><c>"> ]><a t="<b>" u=\'>\'><c/></a>')).toBe(1);
  });

  it('stops once past the limit, and refuses with a 400 naming the flag', () => {
    expect(xmlElementDepth('<a>'.repeat(1e6), 10)).toBe(11);
    setInputLimits({ maxNestingDepth: 2 });
    expect(() => checkXmlDepth('<a><b></b></a>')).not.toThrow();
    expect(() => checkXmlDepth('<a><b><c/><c></c></b></a>')).toThrow('the RDF/XML document nests elements too deeply (limit: 2, set by --max-nesting-depth)');
  });
});
