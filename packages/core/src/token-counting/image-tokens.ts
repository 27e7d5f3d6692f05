import type { ImageContentPart } from '../contracts/chat-message';

/**
 * Tokens of one image by the OpenAI vision rule: `low` detail costs 85; otherwise 85 + 170 per
 * 512-pixel tile after scaling to fit 2048x2048 and the short side to 768. When the dimensions are
 * unknown (a URL or base64 we do not decode), the cost of a 1024x1024 high-detail image is assumed
 * (765 tokens), never the length of the base64 text.
 */
export function imageTokens(part: Readonly<ImageContentPart>, size?: { width: number; height: number }): number {
  if (part.image_url.detail === 'low') return 85;
  if (!size) return 765;
  let { width, height } = size;
  const fit = Math.min(1, 2048 / Math.max(width, height));
  width *= fit;
  height *= fit;
  const shortSide = Math.min(width, height);
  if (shortSide > 768) {
    const scale = 768 / shortSide;
    width *= scale;
    height *= scale;
  }
  return 85 + 170 * Math.ceil(width / 512) * Math.ceil(height / 512);
}
