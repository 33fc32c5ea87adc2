import { backoffMs, SseParser } from './stream';

describe('widget stream: SseParser', () => {
  it('returns each event once its blank line has arrived, across chunk boundaries', () => {
    const parser = new SseParser();
    expect(parser.push('id: 1\nevent: message\nda')).toEqual([]);
    expect(parser.push('ta: {"id":1}\n\nid: 2\nevent: state\ndata: {"status":"open"}\n')).toEqual([{ event: 'message', data: '{"id":1}' }]);
    expect(parser.push('\n')).toEqual([{ event: 'state', data: '{"status":"open"}' }]);
  });

  it('drops comments (the ping), joins multi-line data, reads CRLF line ends, defaults the event to message', () => {
    const parser = new SseParser();
    expect(parser.push(': ping\n\ndata: a\r\ndata: b\r\n\r\nevent: state\ndata:{"x":1}\n\n')).toEqual([
      { event: 'message', data: 'a\nb' },
      { event: 'state', data: '{"x":1}' },
    ]);
  });
});

describe('widget stream: backoffMs', () => {
  it('doubles from about 1 s and stays within 30 s (±25 % jitter)', () => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const base = Math.min(30_000, 1_000 * 2 ** attempt);
      const wait = backoffMs(attempt);
      expect(wait).toBeGreaterThanOrEqual(base * 0.75);
      expect(wait).toBeLessThanOrEqual(base * 1.25);
    }
  });
});
