import { showBytes } from '../../../src/ui/message-browser';

describe('the message browser shows bytes', () => {
  it('as text when they are printable UTF-8, always with their hex', () => {
    expect(showBytes(Buffer.from('héllo\tworld\n'))).toEqual({ text: 'héllo\tworld\n', hex: Buffer.from('héllo\tworld\n').toString('hex') });
  });
  it('as hex only when they are binary or not UTF-8', () => {
    expect(showBytes(Buffer.from([0x00, 0x01, 0xff]))).toEqual({ text: null, hex: '0001ff' });
    expect(showBytes(Buffer.from([0xc3]))).toEqual({ text: null, hex: 'c3' });
  });
  it('null as null', () => {
    expect(showBytes(null)).toBeNull();
  });
});
