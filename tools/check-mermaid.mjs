// Parses every ```mermaid block of the given Markdown files with @mermaid-js/parser (the parser
// Mermaid itself uses for the diagram types it covers) and checks that every edge joins declared
// services, junctions or groups. The parser knows architecture, pie, gitGraph, packet and a few
// more, not flowchart or sequence: the docs draw with `architecture-beta`, and a block of a type
// the parser does not know fails here rather than passing unchecked.
//   node tools/check-mermaid.mjs README.md docs/*.md
import { parse } from '@mermaid-js/parser';
import { readFileSync } from 'node:fs';

/** @typedef {'architecture' | 'pie' | 'gitGraph' | 'packet' | 'info'} DiagramType */

/** @type {Record<string, DiagramType>} */
const TYPES = {
  'architecture-beta': 'architecture',
  pie: 'pie',
  gitGraph: 'gitGraph',
  packet: 'packet',
  'packet-beta': 'packet',
  info: 'info',
};

/**
 * `text` parsed as a diagram of `type` (the parser's overloads take one literal type each).
 * @param {DiagramType} type
 * @param {string} text
 */
function parseAs(type, text) {
  switch (type) {
    case 'architecture':
      return parse(type, text);
    case 'pie':
      return parse(type, text);
    case 'gitGraph':
      return parse(type, text);
    case 'packet':
      return parse(type, text);
    case 'info':
      return parse(type, text);
  }
}

/** @type {string[]} */
const problems = [];
let blocks = 0;
for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, 'utf8');
  for (const [, body] of text.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)) {
    blocks += 1;
    const keyword = body.trim().split(/\s/)[0];
    const type = TYPES[keyword];
    if (!type) {
      problems.push(`${file}: diagram type "${keyword}" cannot be checked by @mermaid-js/parser`);
      continue;
    }
    try {
      const parsed = await parseAs(type, body);
      if (type === 'architecture') {
        const ast = /** @type {import('@mermaid-js/parser').Architecture} */ (parsed);
        const ids = new Set([...ast.services, ...ast.junctions, ...ast.groups].map((node) => node.id));
        for (const edge of ast.edges) {
          for (const end of [edge.lhsId, edge.rhsId])
            if (!ids.has(end)) problems.push(`${file}: edge names "${end}", which is not declared`);
        }
        for (const service of ast.services)
          if (service.in && !ids.has(service.in)) problems.push(`${file}: "${service.id}" is in an undeclared group "${service.in}"`);
      }
    } catch (error) {
      problems.push(`${file}: ${/** @type {Error} */ (error).message.split('\n')[0]}`);
    }
  }
}
if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`mermaid: ${blocks} diagrams parsed\n`);
