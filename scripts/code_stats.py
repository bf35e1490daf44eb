#!/usr/bin/env python3
"""Declarations per module by access level, and the files over 300 lines, for code-health notes.

Counts declaration lines (func, var, let, struct, enum, class, actor, protocol, typealias, init,
subscript, extension; not enum cases) by their explicit modifier — package, public, internal or none
("internal*"), private, fileprivate — in Sources/, Services/ and Tests/; generated code
(*.pb.swift, *.grpc.swift) is skipped. Usage: scripts/code_stats.py [REPOSITORY]
"""
import os,re,sys,collections
root=sys.argv[1] if len(sys.argv)>1 else '.'
decl=re.compile(r'^\s*(?:@[\w.()":, ]+\s+)*((?:(?:package|public|internal|private|fileprivate|open|final|static|class|nonisolated|override|mutating|nonmutating|convenience|required|indirect|lazy|weak|unowned|dynamic|(?:private|fileprivate|package|internal|public)\(set\))\s+)*)(func|var|let|struct|enum|class|actor|protocol|typealias|init|subscript|case|extension)\b')
counts=collections.defaultdict(collections.Counter)
big=[]
for top in ['Sources','Services','Tests']:
  for d,_,fs in os.walk(os.path.join(root,top)):
    for f in fs:
      if not f.endswith('.swift'): continue
      p=os.path.join(d,f); rel=os.path.relpath(p,root)
      mod=rel.split('/')[1] if top!='Services' else 'Services/'+rel.split('/')[1]
      lines=open(p).read().split('\n')
      gen = f.endswith('.pb.swift') or f.endswith('.grpc.swift')
      if len(lines)>300 and not gen: big.append((len(lines),rel))
      if gen: continue
      for l in lines:
        m=decl.match(l)
        if not m: continue
        mods=m.group(1).split()
        acc=next((x for x in mods if x in('package','public','internal','private','fileprivate','open')),'(default)')
        if m.group(2)=='case': continue
        counts[mod][acc]+=1
print('%-22s %8s %8s %9s %9s %8s'%('module','package','public','internal*','private','fileprv'))
for mod in sorted(counts):
  c=counts[mod]; print('%-22s %8d %8d %9d %9d %8d'%(mod,c['package'],c['public']+c['open'],c['internal']+c['(default)'],c['private'],c['fileprivate']))
print('files over 300 lines (not generated):',len(big))
for n,p in sorted(big,reverse=True): print(' ',n,p)
