import math
Z=1.959963984540054
def elo(s): return -400*math.log10(1/s-1)
def phi(x): return 0.5*(1+math.erf(x/math.sqrt(2)))
def est(xs,cs,gps):
    n=sum(cs); s=sum(x*c for x,c in zip(xs,cs))/n
    var=sum(c*(x-s)**2 for x,c in zip(xs,cs))/n
    se=math.sqrt(var/n)
    return dict(elo=elo(s),lo=elo(s-Z*se),hi=elo(s+Z*se),los=phi((s-.5)/se),nelo=(s-.5)/math.sqrt(gps*var)*800/math.log(10))
print(elo(0.75))
print(est([1,.5,0],[30,50,20],1))
print(est([0,.25,.5,.75,1],[5,10,30,15,10],2))
def llr(xs,cs,e0,e1,model,gps):
    n=sum(cs); p=[c/n for c in cs]; s=sum(x*q for x,q in zip(xs,p))
    var=sum(q*(x-s)**2 for x,q in zip(xs,p))
    if model=='log':
        s0,s1=[1/(1+10**(-e/400)) for e in (e0,e1)]
    else:
        s0,s1=[0.5+e*math.sqrt(gps*var)/(800/math.log(10)) for e in (e0,e1)]
    v0=sum(q*(x-s0)**2 for x,q in zip(xs,p)); v1=sum(q*(x-s1)**2 for x,q in zip(xs,p))
    return 0.5*n*math.log(v0/v1)
print(math.log(0.05/0.95))
print(llr([1,.5,0],[300,500,200],0,5,'log',1), llr([1,.5,0],[300,500,200],0,5,'norm',1))
print(llr([0,.25,.5,.75,1],[50,100,300,150,100],0,10,'log',2), llr([0,.25,.5,.75,1],[50,100,300,150,100],0,10,'norm',2))
