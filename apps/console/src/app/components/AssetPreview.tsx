import type { Asset, AssetSummary } from '@weft/sdk/browser';
import { shortId } from '../format';

/** An asset shown as what it is: an image, a player for video and audio, else its type. */
export function AssetPreview({ asset, small = false }: { asset: Asset | AssetSummary; small?: boolean }) {
  const label = `${asset.media_type} ${shortId(asset.id)} (${asset.media_extension})`;
  const className = small ? 'preview small' : 'preview';
  switch (asset.media_type) {
    case 'image':
      return <img className={className} src={asset.url} alt={`Image ${shortId(asset.id)}`} loading="lazy" />;
    case 'video':
      return <video className={className} src={asset.url} controls preload="metadata" aria-label={label} />;
    case 'audio':
      return <audio src={asset.url} controls preload="metadata" aria-label={label} />;
    default:
      return <span className="file-chip">{label}</span>;
  }
}
