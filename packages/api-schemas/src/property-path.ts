/**
 * A JSON pointer from a schema error as the dotted property path the publishing error body uses
 * (`invalidProperties` keys of the publishing API): `/names/en-US` → `names.en-US`,
 * `/attractions/0/source/id` → `attractions[0].source.id`. The edge and publisher both report
 * schema errors this way, so the same body names the same property whichever of them refused it.
 */
export function propertyPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(
      (path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part),
      '',
    );
}
