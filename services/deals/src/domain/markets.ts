/**
 * The market table of the deals API (values of the deals parameter `marketIds`), with the
 * country each market belongs to. "All of <country>" markets cover every event of their country.
 */
export interface Market {
  id: number;
  name: string;
  /** ISO 3166-1 alpha-2 code; the API's "ND" (Northern Ireland) is part of GB. */
  country: string;
  /** The market stands for the whole country ("All of US", "United States", "Germany", ...). */
  wholeCountry: boolean;
}

const table: Array<[number, string, string, boolean?]> = [
  [1, 'Birmingham & More', 'US'],
  [2, 'Charlotte', 'US'],
  [3, 'Chicagoland & Northern IL', 'US'],
  [4, 'Cincinnati & Dayton', 'US'],
  [5, 'Dallas - Fort Worth & More', 'US'],
  [6, 'Denver & More', 'US'],
  [7, 'Detroit, Toledo & More', 'US'],
  [8, 'El Paso & New Mexico', 'US'],
  [9, 'Grand Rapids & More', 'US'],
  [10, 'Greater Atlanta Area', 'US'],
  [11, 'Greater Boston Area', 'US'],
  [12, 'Cleveland, Youngstown & More', 'US'],
  [13, 'Greater Columbus Area', 'US'],
  [14, 'Greater Las Vegas Area', 'US'],
  [15, 'Greater Miami Area', 'US'],
  [16, 'Minneapolis/St. Paul & More', 'US'],
  [17, 'Greater Orlando Area', 'US'],
  [18, 'Greater Philadelphia Area', 'US'],
  [19, 'Greater Pittsburgh Area', 'US'],
  [20, 'Greater San Diego Area', 'US'],
  [21, 'Greater Tampa Area', 'US'],
  [22, 'Houston & More', 'US'],
  [23, 'Indianapolis & More', 'US'],
  [24, 'Iowa', 'US'],
  [25, 'Jacksonville & More', 'US'],
  [26, 'Kansas City & More', 'US'],
  [27, 'Greater Los Angeles Area', 'US'],
  [28, 'Louisville & Lexington', 'US'],
  [29, 'Memphis, Little Rock & More', 'US'],
  [30, 'Milwaukee & WI', 'US'],
  [31, 'Nashville, Knoxville & More', 'US'],
  [32, 'United States', 'US', true],
  [33, 'New England', 'US'],
  [34, 'New Orleans & More', 'US'],
  [35, 'New York/Tri-State Area', 'US'],
  [36, 'Phoenix & Tucson', 'US'],
  [37, 'Portland & More', 'US'],
  [38, 'Raleigh & Durham', 'US'],
  [39, 'Saint Louis & More', 'US'],
  [40, 'San Antonio & Austin', 'US'],
  [41, 'N. California/N. Nevada', 'US'],
  [42, 'Greater Seattle Area', 'US'],
  [43, 'North & South Dakota', 'US'],
  [44, 'Upstate New York', 'US'],
  [45, 'Utah, Montana & Idaho', 'US'],
  [46, 'Virginia', 'US'],
  [47, 'Washington, DC and Maryland', 'US'],
  [48, 'West Virginia', 'US'],
  [49, 'Hawaii', 'US'],
  [50, 'Alaska', 'US'],
  [51, 'All of US', 'US', true],
  [52, 'Nebraska', 'US'],
  [53, 'Springfield', 'US'],
  [54, 'Central Illinois', 'US'],
  [55, 'Northern New Jersey', 'US'],
  [121, 'South Carolina', 'US'],
  [122, 'South Texas', 'US'],
  [123, 'Beaumont', 'US'],
  [124, 'Connecticut', 'US'],
  [125, 'Oklahoma', 'US'],
  [101, 'All of Canada', 'CA', true],
  [102, 'Toronto, Hamilton & Area', 'CA'],
  [103, 'Ottawa & Eastern Ontario', 'CA'],
  [106, 'Manitoba', 'CA'],
  [107, 'Edmonton & Northern Alberta', 'CA'],
  [108, 'Calgary & Southern Alberta', 'CA'],
  [110, 'B.C. Interior', 'CA'],
  [111, 'Vancouver & Area', 'CA'],
  [112, 'Saskatchewan', 'CA'],
  [120, 'Montreal, Quebec City & Area', 'CA'],
  [201, 'All of United Kingdom', 'GB', true],
  [202, 'London', 'GB'],
  [203, 'South', 'GB'],
  [204, 'Midlands and Central', 'GB'],
  [205, 'Wales and North West', 'GB'],
  [206, 'North and North East', 'GB'],
  [207, 'Scotland', 'GB'],
  [208, 'Ireland', 'IE', true],
  [209, 'Northern Ireland', 'GB'],
  [210, 'Germany', 'DE', true],
  [211, 'Netherlands', 'NL', true],
  [301, 'All of Australia', 'AU', true],
  [302, 'New South Wales/Australian Capital Territory', 'AU'],
  [303, 'Queensland', 'AU'],
  [304, 'Western Australia', 'AU'],
  [305, 'Victoria/Tasmania', 'AU'],
  [306, 'Western Australia', 'AU'],
  [350, 'All of New Zealand', 'NZ', true],
  [351, 'North Island', 'NZ'],
  [352, 'South Island', 'NZ'],
  [401, 'All of Mexico', 'MX', true],
  [402, 'Mexico City and Metropolitan Area', 'MX'],
  [403, 'Monterrey', 'MX'],
  [404, 'Guadalajara', 'MX'],
  [500, 'Sweden', 'SE', true],
  [501, 'Todas las poblaciones', 'ES', true],
  [502, 'Barcelona', 'ES'],
  [503, 'Madrid', 'ES'],
  [600, 'Turkey', 'TR', true],
];

export const markets: ReadonlyMap<number, Market> = new Map(
  table.map(([id, name, country, wholeCountry]) => [
    id,
    { id, name, country, wholeCountry: wholeCountry === true },
  ]),
);

export const isMarketId = (id: number): boolean => markets.has(id);

/** The country of an event known only by its markets: the country of its first known market. */
export function countryOfMarkets(marketIds: readonly number[]): string | undefined {
  for (const id of marketIds) {
    const market = markets.get(id);
    if (market) return market.country;
  }
  return undefined;
}
