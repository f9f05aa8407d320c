/**
 * Designated market areas (Nielsen DMA codes) of the US markets of the market table
 * (services/deals/src/domain/markets.ts). Events carry market ids, not DMAs, so `dmaId` matches the
 * events of the markets that lie in that DMA. Markets without an entry (regions such as "All of
 * US") match no DMA.
 */
const dmaOfMarket: Readonly<Record<number, number>> = {
  1: 630, // Birmingham
  2: 517, // Charlotte
  3: 602, // Chicago
  4: 515, // Cincinnati
  5: 623, // Dallas-Ft. Worth
  6: 751, // Denver
  7: 505, // Detroit
  8: 765, // El Paso
  9: 563, // Grand Rapids
  10: 524, // Atlanta
  11: 506, // Boston
  12: 510, // Cleveland
  13: 535, // Columbus
  14: 839, // Las Vegas
  15: 528, // Miami
  16: 613, // Minneapolis-St. Paul
  17: 534, // Orlando
  18: 504, // Philadelphia
  19: 508, // Pittsburgh
  20: 825, // San Diego
  21: 539, // Tampa
  22: 618, // Houston
  23: 527, // Indianapolis
  24: 679, // Des Moines
  25: 561, // Jacksonville
  26: 616, // Kansas City
  27: 803, // Los Angeles
  28: 529, // Louisville
  29: 640, // Memphis
  30: 617, // Milwaukee
  31: 659, // Nashville
  34: 622, // New Orleans
  35: 501, // New York
  36: 753, // Phoenix
  37: 820, // Portland
  38: 560, // Raleigh-Durham
  39: 609, // St. Louis
  40: 641, // San Antonio
  41: 807, // San Francisco
  42: 819, // Seattle
  46: 511, // Washington (VA suburbs share the DC DMA)
  47: 511, // Washington, DC
};

/** The DMA codes an event's markets lie in. */
export function dmasOfMarkets(marketIds: readonly number[]): number[] {
  const found: number[] = [];
  for (const id of marketIds) {
    const dma = dmaOfMarket[id];
    if (dma !== undefined && !found.includes(dma)) found.push(dma);
  }
  return found;
}
