// Markdown as GitHub renders it, for the checks of the docs: the anchors its headings get, and the
// relative links a document makes.

/** The text outside fenced code blocks, so that a `# comment` in a shell block is no heading. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```$/gm, '');
}

/**
 * GitHub's anchor of every heading: lower case, punctuation (backticks included) dropped, spaces as
 * dashes; a repeated anchor gets `-1`, `-2`, … in order.
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n += 1) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Every link of the prose to a path in the repository (not a URL), with its `#anchor` if any. */
export function relativeLinks(markdown: string): Array<{ target: string; anchor: string | undefined }> {
  return [...prose(markdown).matchAll(/\]\(((?!https?:|mailto:)[^)#\s]*)(?:#([^)\s]*))?\)/g)].map(([, target, anchor]) => ({
    target: target!,
    anchor,
  }));
}
