// A video in an HTML5 package: the file goes into the zip and plays as a muted, inline, autoplaying <video> (browsers
// autoplay only muted video; DV360 allows muted autoplay only). Whether the network takes video at all is the
// validator's call.
import type { HtmlContext } from '../../render/html-types.js';
import type { VideoElement } from './schema.js';

export async function videoToHtml(element: VideoElement, hc: HtmlContext): Promise<string> {
  const { bytes, extension } = await hc.fetch(element.src, 'video');
  const name = hc.addFile('video', extension, bytes);
  const start = element.trimStart ? `#t=${element.trimStart}` : '';
  return `<video src="${name}${start}" muted autoplay playsinline${element.loop ? ' loop' : ''} style="position:absolute;inset:0;width:100%;height:100%;object-fit:${element.fit ?? 'cover'}"></video>`;
}
