#!/usr/bin/env python3
"""Add MSIM_API to unmarked public declarations in the given headers and realign their
continuation lines (idempotent). Usage: scripts/add-msim-api.py include/memcgsim/*.h"""
import re, sys
decl = re.compile(r'^(?!static|typedef|#|MSIM_API|struct\s+\w+\s*\{|enum|union|extern\s+"C"|\s|}|/|\*)'
                  r'(?:(extern\s+)[A-Za-z_][\w\s\*]*?\b(msim_\w+)\s*(\[|;)|[A-Za-z_][\w\s\*]*?\b(msim_\w+)\s*\()')
def cols(ws):
    c=0
    for ch in ws:
        c = (c//8+1)*8 if ch=='\t' else c+1
    return c
def enc(c): return '\t'*(c//8)+' '*(c%8)
for path in sys.argv[1:]:
    src=open(path).read().split('\n'); out=[]; depth=0; changed=0; fix=False; pd=0
    for line in src:
        if fix and pd>0:
            st=line.lstrip(' \t'); line=enc(cols(line[:len(line)-len(st)])+9)+st
        elif depth==0 and decl.match(line) and '(*' not in line.split('msim_')[0]:
            line='MSIM_API '+line; changed+=1; fix=True; pd=0
        if fix:
            pd+=line.count('(')-line.count(')')
            if pd<=0: fix=False
        if not line.startswith('extern "C"') and not line.startswith('#'):
            depth=max(depth+line.count('{')-line.count('}'),0)
        out.append(line)
    text='\n'.join(out)
    if changed and '<memcgsim/api.h>' not in text:
        text=re.sub(r'(#define MEMCGSIM_\w+_H\n)', r'\1\n#include <memcgsim/api.h>\n', text, count=1)
    open(path,'w').write(text)
    if changed: print(f'{path}: {changed}')
