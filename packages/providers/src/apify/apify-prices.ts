import type { PriceTable } from '../prices';

// What the default actors cost, in credits (1 credit = US$0.001): their
// pay-per-result list prices in the Apify Store at the time of writing, per
// item of the dataset. A run of another actor (params.model) is priced by the
// fallback, set high: such actors may bill compute units and events on top.
export const APIFY_PRICES: PriceTable = {
  // $5.80 per 1,000 ads.
  'apify:apify/facebook-ads-scraper': { per_item: 5.8 },
  // $5 per 1,000 ads.
  'apify:crucial_binoculars/linkedin-ad-library': { per_item: 5 },
  // $2.30 per 1,000 posts.
  'apify:apify/instagram-scraper': { per_item: 2.3 },
  // $5 per 1,000 posts.
  'apify:curious_coder/linkedin-post-search-scraper': { per_item: 5 },
  // $4 per 1,000 videos, with the video downloads.
  'apify:clockworks/tiktok-scraper': { per_item: 4 },
  // An unknown actor: 1¢ an item and 10¢ a run, above what store actors ask (what the extractor types reserve).
  'apify:*': { per_item: 10, per_request: 100 },
};
