// A video in an HTML5 package: the file goes into the zip and plays as a muted, inline, autoplaying <video> (browsers
// autoplay only muted video; DV360 allows muted autoplay only). Where the network takes no video (Google Ads, or no
// video extension in its list) the element shows its frame at trimStart instead, as stills do.
import { drawFitted } from '../../render/fit.js';
import type { HtmlContext } from '../../render/html-types.js';
import { videoFrameSource } from '../../render/media/image-source.js';
import type { VideoElement } from './schema.js';

export async function videoToHtml(element: VideoElement, hc: HtmlContext): Promise<string> {
  const { bytes, extension } = await hc.fetch(element.src, 'video');
  if (!hc.allowsVideo(extension)) {
    const frame = hc.assets.image(videoFrameSource(element.src, element.trimStart ?? 0));
    if (!frame) return '';
    return hc.raster(element.width, element.height, (ctx) =>
      drawFitted(ctx, frame, element.width, element.height, { fit: element.fit ?? 'cover' }),
    );
  }
  const name = hc.addFile('video', extension, bytes);
  const start = element.trimStart ? `#t=${element.trimStart}` : '';
  return `<video src="${name}${start}" muted autoplay playsinline${element.loop ? ' loop' : ''} style="position:absolute;inset:0;width:100%;height:100%;object-fit:${element.fit ?? 'cover'}"></video>`;
}
