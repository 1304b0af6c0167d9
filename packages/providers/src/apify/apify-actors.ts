import type { NodeType } from '@weft/contracts';

// Which Apify actor serves each extractor type, how a node's `query` and
// `limit` become the actor's input, and how the actor's dataset items become
// ours. This is data: params.model names another actor (any actor of the
// store or of the account, `owner/name` or its id), params.options is merged
// over the input the mapping makes (the actor's own settings: cookies,
// countries, proxies...).
//
// Our item: {id, url, text, author, published_at, media, raw}
//   id            the network's id of the post or ad (string), else null
//   url           where it is seen on the network, else null
//   text          its caption, body or copy, else null
//   author        the page, account or person who published it, else null
//   published_at  ISO 8601, else null
//   media         asset ids of the run: the item's images and videos, stored
//   raw           the actor's item as it gave it

/** A media file an item names, with the kind its field says it is. */
export interface MediaRef {
  url: string;
  kind: 'image' | 'video';
}

/** An actor's item read into our fields; `media` still URLs. */
export interface ReadItem {
  id: string | null;
  url: string | null;
  text: string | null;
  author: string | null;
  published_at: string | null;
  media: MediaRef[];
}

export interface ActorMapping {
  /** The input of a run for `query` and at most `limit` items (options are merged over it). */
  input(query: string, limit: number): Record<string, unknown>;
  read(item: Record<string, unknown>): ReadItem;
}

export type ExtractorType =
  | 'socialads_extractor'
  | 'professionalnetwork_ads_extractor'
  | 'photosocial_posts_extractor'
  | 'professionalnetwork_posts_extractor'
  | 'shortvideo_extractor';

type Item = Record<string, unknown>;

const isUrl = (query: string) => /^https?:\/\//i.test(query);

/** The value at `path` (dot-separated) of `item`. */
function at(item: unknown, path: string): unknown {
  let value = item;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Item)[key];
  }
  return value;
}

/** The first of `paths` holding a non-empty string or a number, as a string. */
function firstString(item: Item, paths: string[]): string | null {
  for (const path of paths) {
    const value = at(item, path);
    if (typeof value === 'string' && value.trim() !== '') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  }
  return null;
}

/** A date as ISO 8601: ISO strings as given, numbers as Unix seconds (or milliseconds when that large). */
function isoDate(item: Item, paths: string[]): string | null {
  for (const path of paths) {
    const value = at(item, path);
    let date: Date | undefined;
    if (typeof value === 'number' && Number.isFinite(value)) date = new Date(value > 1e12 ? value : value * 1000);
    else if (typeof value === 'string' && value.trim() !== '') date = new Date(value);
    if (date && !Number.isNaN(date.getTime())) return date.toISOString();
  }
  return null;
}

/** The URLs at `paths`: strings, lists of strings, or lists of objects holding one of `fields`. */
function urls(item: Item, paths: string[], fields: string[] = ['url']): string[] {
  const found: string[] = [];
  for (const path of paths) {
    const value = at(item, path);
    const entries = Array.isArray(value) ? value : [value];
    for (const entry of entries) {
      const url =
        typeof entry === 'string'
          ? entry
          : entry && typeof entry === 'object'
            ? firstString(entry as Item, fields)
            : null;
      if (url && isUrl(url)) found.push(url);
    }
  }
  return found;
}

const media = (kind: MediaRef['kind'], list: string[]): MediaRef[] => list.map((url) => ({ url, kind }));

/** Removes repeated URLs, keeping the first (an actor often names one file under two fields). */
function distinct(refs: MediaRef[]): MediaRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => !seen.has(r.url) && seen.add(r.url));
}

/** The fields most actors use, for an actor this table does not know. */
export const GENERIC: ActorMapping = {
  input: (query, limit) => ({
    ...(isUrl(query) ? { startUrls: [{ url: query }] } : { searchQueries: [query] }),
    maxItems: limit,
  }),
  read: (item) => ({
    id: firstString(item, ['id', 'postId', 'adId', 'adArchiveID', 'urn', 'shortCode']),
    url: firstString(item, ['url', 'postUrl', 'webVideoUrl', 'link', 'adUrl']),
    text: firstString(item, ['text', 'caption', 'content', 'body', 'description', 'title']),
    author: firstString(item, ['author.name', 'authorName', 'ownerUsername', 'authorMeta.name', 'pageName', 'author']),
    published_at: isoDate(item, ['publishedAt', 'timestamp', 'createTimeISO', 'postedAtISO', 'date', 'startDate']),
    media: distinct([
      ...media('video', urls(item, ['videoUrl', 'videos', 'mediaUrls'])),
      ...media('image', urls(item, ['imageUrl', 'displayUrl', 'images'])),
    ]),
  }),
};

/** Facebook's Ad Library search for a keyword, all countries and ad types. */
const facebookAdLibrary = (query: string) =>
  `https://www.facebook.com/ads/library/?active_status=all&ad_type=all&country=ALL&media_type=all&search_type=keyword_unordered&q=${encodeURIComponent(query)}`;

/** apify/facebook-ads-scraper: Meta's Ad Library (Facebook and Instagram ads). */
const FACEBOOK_ADS: ActorMapping = {
  input: (query, limit) => ({
    startUrls: [{ url: isUrl(query) ? query : facebookAdLibrary(query) }],
    resultsLimit: limit,
  }),
  read: (item) => {
    const id = firstString(item, ['adArchiveID', 'adArchiveId', 'adid', 'id']);
    return {
      id,
      url: firstString(item, ['adLibraryURL', 'url']) ?? (id ? `https://www.facebook.com/ads/library/?id=${id}` : null),
      text: firstString(item, ['snapshot.body.text', 'snapshot.title', 'snapshot.caption']),
      author: firstString(item, ['snapshot.pageName', 'pageName']),
      published_at: isoDate(item, ['startDate', 'startDateFormatted']),
      media: distinct([
        ...media('video', urls(item, ['snapshot.videos', 'snapshot.cards'], ['videoHdUrl', 'videoSdUrl'])),
        ...media('image', urls(item, ['snapshot.images', 'snapshot.cards'], ['originalImageUrl', 'resizedImageUrl'])),
      ]),
    };
  },
};

/** crucial_binoculars/linkedin-ad-library: LinkedIn's Ad Library. */
const LINKEDIN_ADS: ActorMapping = {
  input: (query, limit) => ({
    startUrls: [
      { url: isUrl(query) ? query : `https://www.linkedin.com/ad-library/search?keyword=${encodeURIComponent(query)}` },
    ],
    maxItems: limit,
  }),
  read: (item) => ({
    id: firstString(item, ['adId', 'id']),
    url: firstString(item, ['adUrl', 'url', 'adLibraryUrl']),
    text: firstString(item, ['commentary', 'text', 'body', 'headline', 'title']),
    author: firstString(item, ['advertiserName', 'advertiser.name', 'advertiser', 'companyName']),
    published_at: isoDate(item, ['startDate', 'firstShown', 'publishedAt']),
    media: distinct([
      ...media('video', urls(item, ['videoUrl', 'videos'])),
      ...media('image', urls(item, ['imageUrl', 'images'])),
    ]),
  }),
};

/** apify/instagram-scraper: posts of a profile, hashtag or post URL, or of a search (#tag or @user or words). */
const INSTAGRAM: ActorMapping = {
  input: (query, limit) =>
    isUrl(query)
      ? { directUrls: [query], resultsType: 'posts', resultsLimit: limit }
      : {
          search: query.replace(/^[#@]/, ''),
          searchType: query.startsWith('@') ? 'user' : 'hashtag',
          searchLimit: 1,
          resultsType: 'posts',
          resultsLimit: limit,
        },
  read: (item) => ({
    id: firstString(item, ['id', 'shortCode']),
    url: firstString(item, ['url']),
    text: firstString(item, ['caption']),
    author: firstString(item, ['ownerUsername', 'ownerFullName']),
    published_at: isoDate(item, ['timestamp']),
    media: distinct([
      ...media('video', urls(item, ['videoUrl'])),
      // A sidecar's images, else the post's own picture (a video's is its cover: left out).
      ...media(
        'image',
        item.type === 'Video'
          ? []
          : urls(item, ['images', 'childPosts'], ['displayUrl']).concat(urls(item, ['displayUrl'])),
      ),
    ]),
  }),
};

/** curious_coder/linkedin-post-search-scraper: LinkedIn's content search (or a search URL). */
const LINKEDIN_POSTS: ActorMapping = {
  input: (query, limit) => ({
    urls: [
      isUrl(query) ? query : `https://www.linkedin.com/search/results/content/?keywords=${encodeURIComponent(query)}`,
    ],
    limitPerSource: limit,
    deepScrape: false,
  }),
  read: (item) => ({
    id: firstString(item, ['urn', 'id']),
    url: firstString(item, ['url']),
    text: firstString(item, ['text']),
    author: firstString(item, ['authorName', 'author.name', 'author.firstName']),
    published_at: isoDate(item, ['postedAtISO', 'postedAtTimestamp']),
    media: distinct([
      ...media('video', urls(item, ['video.url', 'videoUrl'])),
      ...media('image', urls(item, ['images', 'image'])),
    ]),
  }),
};

/** clockworks/tiktok-scraper: #hashtag, @profile, a video URL, or a search; videos downloaded by the actor. */
const TIKTOK: ActorMapping = {
  input: (query, limit) => ({
    ...(isUrl(query)
      ? { postURLs: [query] }
      : query.startsWith('#')
        ? { hashtags: [query.slice(1)] }
        : query.startsWith('@')
          ? { profiles: [query.slice(1)] }
          : { searchQueries: [query] }),
    resultsPerPage: limit,
    // TikTok's own video URLs need its cookies: the actor stores the videos and lists them in mediaUrls.
    shouldDownloadVideos: true,
    shouldDownloadCovers: false,
  }),
  read: (item) => ({
    id: firstString(item, ['id']),
    url: firstString(item, ['webVideoUrl']),
    text: firstString(item, ['text']),
    author: firstString(item, ['authorMeta.name', 'authorMeta.nickName']),
    published_at: isoDate(item, ['createTimeISO', 'createTime']),
    media: distinct(media('video', urls(item, ['mediaUrls']))),
  }),
};

/** The actor of each type by default, and the mapping of every actor this table knows. */
export const DEFAULT_ACTORS: Record<ExtractorType, string> = {
  socialads_extractor: 'apify/facebook-ads-scraper',
  professionalnetwork_ads_extractor: 'crucial_binoculars/linkedin-ad-library',
  photosocial_posts_extractor: 'apify/instagram-scraper',
  professionalnetwork_posts_extractor: 'curious_coder/linkedin-post-search-scraper',
  shortvideo_extractor: 'clockworks/tiktok-scraper',
};

const MAPPINGS: Record<string, ActorMapping> = {
  'apify/facebook-ads-scraper': FACEBOOK_ADS,
  'crucial_binoculars/linkedin-ad-library': LINKEDIN_ADS,
  'apify/instagram-scraper': INSTAGRAM,
  'curious_coder/linkedin-post-search-scraper': LINKEDIN_POSTS,
  'clockworks/tiktok-scraper': TIKTOK,
};

/** How to call `actor` (`owner/name`, `owner~name` or an id): its mapping, else the generic one. */
export function mappingOf(actor: string): ActorMapping {
  return MAPPINGS[actor.replace('~', '/')] ?? GENERIC;
}

export const EXTRACTOR_TYPES = Object.keys(DEFAULT_ACTORS) as ExtractorType[] satisfies NodeType[];
