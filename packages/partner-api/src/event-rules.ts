import type { PartnerEvent } from './schemas.js';

/**
 * Rules of the 3P API on an event that its schema cannot express: at most one regular price type,
 * and each logo listed once (logos are unique; at most two is the schema's `maxItems`). Empty when
 * the event keeps them. partner-reference refuses an event that breaks one (400 on its back office)
 * and 3p-connector does not import one.
 */
export function eventRuleProblems(event: Pick<PartnerEvent, 'price_types' | 'logos'>): string[] {
  const problems: string[] = [];
  const regular = event.price_types.filter((t) => t.regular).map((t) => t.id);
  if (regular.length > 1)
    problems.push(`price_types: at most one is regular, not ${regular.join(', ')}`);
  const seen = new Set<string>();
  for (const logo of event.logos ?? []) {
    if (seen.has(logo.id)) problems.push(`logos: ${logo.id} is listed twice`);
    seen.add(logo.id);
  }
  return problems;
}
