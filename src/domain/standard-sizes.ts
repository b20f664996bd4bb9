// The standard ad and social sizes (IAB, Google Ads, social networks). A size of a design whose width × height is one
// of these is a `system_design`; any other is a `custom_design` (SPEC §5). Names are the industry's usual ones.

export interface StandardSize {
  width: number;
  height: number;
  name: string;
  family: 'IAB' | 'Google Ads' | 'Social';
}

export const STANDARD_SIZES: readonly StandardSize[] = [
  // IAB display, most of which Google Ads also serves.
  { width: 300, height: 250, name: 'Medium Rectangle', family: 'IAB' },
  { width: 336, height: 280, name: 'Large Rectangle', family: 'IAB' },
  { width: 728, height: 90, name: 'Leaderboard', family: 'IAB' },
  { width: 970, height: 90, name: 'Large Leaderboard', family: 'IAB' },
  { width: 970, height: 250, name: 'Billboard', family: 'IAB' },
  { width: 160, height: 600, name: 'Wide Skyscraper', family: 'IAB' },
  { width: 120, height: 600, name: 'Skyscraper', family: 'IAB' },
  { width: 300, height: 600, name: 'Half Page', family: 'IAB' },
  { width: 300, height: 1050, name: 'Portrait', family: 'IAB' },
  { width: 320, height: 50, name: 'Mobile Leaderboard', family: 'IAB' },
  { width: 300, height: 50, name: 'Mobile Banner', family: 'IAB' },
  { width: 320, height: 100, name: 'Large Mobile Banner', family: 'IAB' },
  { width: 468, height: 60, name: 'Banner', family: 'IAB' },
  { width: 234, height: 60, name: 'Half Banner', family: 'IAB' },
  { width: 250, height: 250, name: 'Square', family: 'IAB' },
  { width: 200, height: 200, name: 'Small Square', family: 'IAB' },
  { width: 180, height: 150, name: 'Small Rectangle', family: 'IAB' },
  { width: 120, height: 240, name: 'Vertical Banner', family: 'IAB' },
  { width: 240, height: 400, name: 'Vertical Rectangle', family: 'IAB' },
  { width: 300, height: 100, name: '3:1 Rectangle', family: 'IAB' },
  { width: 120, height: 60, name: 'Button 2', family: 'IAB' },
  { width: 88, height: 31, name: 'Micro Bar', family: 'IAB' },
  { width: 320, height: 480, name: 'Mobile Interstitial Portrait', family: 'IAB' },
  { width: 480, height: 320, name: 'Mobile Interstitial Landscape', family: 'IAB' },
  { width: 768, height: 1024, name: 'Tablet Interstitial Portrait', family: 'IAB' },
  { width: 1024, height: 768, name: 'Tablet Interstitial Landscape', family: 'IAB' },
  // Google Ads only (regional and responsive display image sizes).
  { width: 250, height: 360, name: 'Triple Widescreen', family: 'Google Ads' },
  { width: 580, height: 400, name: 'Netboard', family: 'Google Ads' },
  { width: 930, height: 180, name: 'Top Banner', family: 'Google Ads' },
  { width: 980, height: 120, name: 'Panorama', family: 'Google Ads' },
  { width: 960, height: 1200, name: 'Responsive Display Portrait', family: 'Google Ads' },
  { width: 1200, height: 300, name: 'Responsive Display Logo Landscape', family: 'Google Ads' },
  // Social networks and video.
  { width: 1080, height: 1080, name: 'Instagram Square', family: 'Social' },
  { width: 1080, height: 1350, name: 'Instagram Portrait', family: 'Social' },
  { width: 1080, height: 566, name: 'Instagram Landscape', family: 'Social' },
  { width: 1080, height: 1920, name: 'Story / Reel', family: 'Social' },
  { width: 1200, height: 628, name: 'Facebook Link', family: 'Social' },
  { width: 1200, height: 627, name: 'LinkedIn Sponsored Content', family: 'Social' },
  { width: 1200, height: 1200, name: 'Facebook Square', family: 'Social' },
  { width: 820, height: 312, name: 'Facebook Cover', family: 'Social' },
  { width: 1000, height: 1500, name: 'Pinterest Pin', family: 'Social' },
  { width: 1600, height: 900, name: 'X Image', family: 'Social' },
  { width: 1500, height: 500, name: 'X Header', family: 'Social' },
  { width: 1584, height: 396, name: 'LinkedIn Banner', family: 'Social' },
  { width: 1920, height: 1080, name: 'Full HD Video', family: 'Social' },
  { width: 1280, height: 720, name: 'HD Video / YouTube Thumbnail', family: 'Social' },
  { width: 2560, height: 1440, name: 'YouTube Channel Art', family: 'Social' },
];

const BY_DIMENSIONS = new Map(STANDARD_SIZES.map((size) => [`${size.width}x${size.height}`, size]));

/** The standard size with these exact dimensions, if there is one. */
export function standardSize(width: number, height: number): StandardSize | undefined {
  return BY_DIMENSIONS.get(`${width}x${height}`);
}

export type SizeKind = 'system_design' | 'custom_design';

export function sizeKind(width: number, height: number): SizeKind {
  return standardSize(width, height) ? 'system_design' : 'custom_design';
}
