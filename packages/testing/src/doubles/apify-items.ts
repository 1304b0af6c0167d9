// Dataset items as the default actors write them (the fields our adapter
// reads, plus some it does not), naming media the double serves.

export interface ItemMedia {
  image: string;
  video: string;
}

type Item = Record<string, unknown>;

const day = (n: number) => new Date(Date.UTC(2024, 5, 1 + n)).toISOString();

const FIXTURES: Record<string, (n: number, m: ItemMedia) => Item> = {
  'apify/facebook-ads-scraper': (n, m) => ({
    adArchiveID: `90000000000${n}`,
    pageID: '104958162837',
    pageName: 'Acme Shoes',
    isActive: true,
    publisherPlatform: ['FACEBOOK', 'INSTAGRAM'],
    startDate: Date.UTC(2024, 5, 1 + n) / 1000,
    snapshot: {
      pageName: 'Acme Shoes',
      body: { text: `Ad ${n}: run faster in Acme shoes` },
      images: [{ originalImageUrl: `${m.image}?ad=${n}`, resizedImageUrl: `${m.image}?ad=${n}&s=600` }],
      videos: n === 0 ? [{ videoHdUrl: `${m.video}?ad=${n}`, videoSdUrl: `${m.video}?ad=${n}&sd=1` }] : [],
      cards: [],
    },
  }),
  'crucial_binoculars/linkedin-ad-library': (n, m) => ({
    adId: `5550${n}`,
    adUrl: `https://www.linkedin.com/ad-library/detail/5550${n}`,
    advertiserName: 'Acme Corp',
    commentary: `Ad ${n}: hiring engineers`,
    startDate: day(n),
    imageUrl: `${m.image}?li-ad=${n}`,
    format: 'SINGLE_IMAGE',
  }),
  'apify/instagram-scraper': (n, m) => ({
    id: `31000${n}`,
    type: n === 0 ? 'Video' : 'Image',
    shortCode: `C${n}xyz`,
    caption: `Post ${n} #sunset`,
    url: `https://www.instagram.com/p/C${n}xyz/`,
    ownerUsername: 'acme.photos',
    timestamp: day(n),
    displayUrl: `${m.image}?ig=${n}`,
    images: [],
    ...(n === 0 ? { videoUrl: `${m.video}?ig=${n}` } : {}),
    likesCount: 10 * n,
  }),
  'curious_coder/linkedin-post-search-scraper': (n, m) => ({
    urn: `urn:li:activity:7200${n}`,
    url: `https://www.linkedin.com/feed/update/urn:li:activity:7200${n}/`,
    text: `Post ${n}: what we learned shipping`,
    authorName: 'Ada Lovelace',
    postedAtISO: day(n),
    images: [`${m.image}?lip=${n}`],
    numLikes: n,
  }),
  'clockworks/tiktok-scraper': (n, m) => ({
    id: `7300${n}`,
    text: `Video ${n} #dance`,
    webVideoUrl: `https://www.tiktok.com/@acme/video/7300${n}`,
    createTimeISO: day(n),
    authorMeta: { name: 'acme', nickName: 'Acme' },
    videoMeta: { duration: 1, coverUrl: `${m.image}?tt=${n}` },
    mediaUrls: [`${m.video}?tt=${n}`],
    playCount: 100 * n,
  }),
};

/** `count` items of `actor` (`owner/name`); an actor the double does not know writes generic ones. */
export function itemsOf(actor: string, count: number, media: ItemMedia): Item[] {
  const fixture =
    FIXTURES[actor] ?? ((n: number) => ({ id: `generic-${n}`, url: `https://example.com/${n}`, text: `Item ${n}` }));
  return Array.from({ length: count }, (_, n) => fixture(n, media));
}
