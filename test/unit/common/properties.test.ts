import { formatProperties, parseProperties } from '../../../src/common/config/properties';

describe('parseProperties', () => {
  it('reads comments, separators, continuations and escapes as java.util.Properties', () => {
    const text = [
      '# a comment',
      '! another comment',
      '   ',
      'broker.id=0',
      'log.dirs : /a,\\',
      '    /b',
      'key\\ with\\ spaces = value',
      'tabbed\tvalue here',
      'unicode=\\u0041\\tB',
      'empty=',
      'trailing.ws = keep   ',
      'broker.id=1',
    ].join('\n');
    const p = parseProperties(text);
    expect(p.get('broker.id')).toBe('1');
    expect(p.get('log.dirs')).toBe('/a,/b');
    expect(p.get('key with spaces')).toBe('value');
    expect(p.get('tabbed')).toBe('value here');
    expect(p.get('unicode')).toBe('A\tB');
    expect(p.get('empty')).toBe('');
    expect(p.get('trailing.ws')).toBe('keep   ');
    expect([...p.keys()]).toEqual(['broker.id', 'log.dirs', 'key with spaces', 'tabbed', 'unicode', 'empty', 'trailing.ws']);
  });

  it('handles CRLF files and an escaped backslash at line end', () => {
    const p = parseProperties('a=1\r\nb=c:\\\\\r\nd=2\r\n');
    expect(p.get('a')).toBe('1');
    expect(p.get('b')).toBe('c:\\');
    expect(p.get('d')).toBe('2');
  });

  it('writes what it reads back (meta.properties round trip)', () => {
    const text = formatProperties(
      [
        ['cluster.id', 'IOejp_IKSbWbySJc0sRrKw'],
        ['version', '0'],
        ['broker.id', '0'],
      ],
      new Date(2021, 4, 10, 10, 0, 0),
    );
    const lines = text.split('\n');
    expect(lines[0]).toBe('#');
    expect(lines[1]).toMatch(/^#Mon May 10 10:00:00 \S+ 2021$/);
    expect([...parseProperties(text)]).toEqual([
      ['cluster.id', 'IOejp_IKSbWbySJc0sRrKw'],
      ['version', '0'],
      ['broker.id', '0'],
    ]);
  });
});
