//! The heat maps' part of the page's one inline script: hover shows a cell's time
//! and samples; a drag (or a click) selects the cells from the first to the last
//! in time order, as FlameScope does, and the flame graph of their samples is drawn
//! under the map from the call tree in `data-heat`; a double-click selects the
//! whole map again. It loads nothing and sets capture text (frame names) only as
//! text. After each drawing the flame graph's element carries `data-range`
//! (`first-last` cell) and `data-samples` (the samples drawn).

/// The script (appended to [`super::live::script`] in the page's one `<script>`).
pub(super) const SCRIPT: &str = r##"
(function(){
"use strict";
var maps=[].slice.call(document.querySelectorAll("div.hm"));
if(!maps.length)return;
var NS="http://www.w3.org/2000/svg";
var tip=document.getElementById("tip");
if(!tip){tip=document.createElement("div");tip.id="tip";tip.className="tip";tip.style.display="none";document.body.appendChild(tip);}
function pad(n){return(n<10?"0":"")+n;}
function at(m,cell){var e=m.t0+Math.floor(cell/m.rows)+m.off,d=new Date(e*1000);
  return pad(d.getUTCHours())+":"+pad(d.getUTCMinutes())+":"+pad(d.getUTCSeconds())+"."+(cell%m.rows);}
/* Yellow to orange by a hash of the name (fsync-like frames are the only red ones). */
function hue(name){var h=0;for(var i=0;i<name.length;i++)h=(h*31+name.charCodeAt(i))>>>0;
  return"rgb("+(215+h%41)+","+(100+(h>>>6)%131)+","+((h>>>14)%56)+")";}
function many(n,w){return n+" "+w+(n===1?"":"s");}
function el(tag,attrs){var e=document.createElementNS(NS,tag);for(var k in attrs)e.setAttribute(k,attrs[k]);return e;}
function setup(div){
  var d=JSON.parse(div.dataset.heat),ds=div.dataset;
  var m={div:div,t0:+ds.t0,cols:+ds.cols,rows:+ds.rows,off:+ds.off,zone:ds.zone,x0:+ds.x0,x1:+ds.x1,top:+ds.top,bottom:+ds.bottom,
    c:d.c,f:d.f.split("\n"),par:[],fr:[],red:{},cells:{},kids:[],fg:document.getElementById(div.id+"-fg"),
    hov:div.querySelector("rect.hov"),sel:div.querySelector("path.hsel")};
  var i;
  for(i=0;i<d.n.length;i+=2){m.par.push(d.n[i]);m.fr.push(d.n[i+1]);m.kids.push([]);}
  for(i=1;i<m.par.length;i++)m.kids[m.par[i]].push(i);
  m.kids.forEach(function(k){k.sort(function(a,b){var x=m.f[m.fr[a]],y=m.f[m.fr[b]];return x<y?-1:x>y?1:0;});});
  d.r.forEach(function(x){m.red[x]=1;});
  for(i=0;i<d.s.length;){var k=d.s[i+1];m.cells[d.s[i]]=d.s.slice(i+2,i+2+2*k);i+=2+2*k;}
  return m;
}
function cellAt(m,ev){var ctm=m.hov.getScreenCTM();if(!ctm)return null;var pt=m.hov.ownerSVGElement.createSVGPoint();
  pt.x=ev.clientX;pt.y=ev.clientY;var p=pt.matrixTransform(ctm.inverse());
  var col=Math.floor((p.x-m.x0)/(m.x1-m.x0)*m.cols),row=Math.floor((p.y-m.top)/(m.bottom-m.top)*m.rows);
  col=Math.max(0,Math.min(m.cols-1,col));row=Math.max(0,Math.min(m.rows-1,row));return col*m.rows+row;}
function outline(m,a,b){
  if(a===null){m.sel.setAttribute("d","");return;}
  var R=m.rows,ca=Math.floor(a/R),ra=a%R,cb=Math.floor(b/R),rb=b%R,p;
  if(ca===cb)p="M"+ca+" "+ra+"h1v"+(rb-ra+1)+"h-1z";
  else{p="M"+ca+" "+ra+"h1v"+(R-ra)+"h-1z";if(cb-ca>1)p+="M"+(ca+1)+" 0h"+(cb-ca-1)+"v"+R+"h-"+(cb-ca-1)+"z";p+="M"+cb+" 0h1v"+(rb+1)+"h-1z";}
  m.sel.setAttribute("d",p);}
function draw(m,a,b){
  var n=m.par.length,self=[],w=[],i,j,total=0,heat=0;
  for(i=0;i<n;i++)self.push(0);
  for(var c=a;c<=b;c++){heat+=m.c[c]||0;var v=m.cells[c];if(!v)continue;for(j=0;j<v.length;j+=2){self[v[j]]+=v[j+1];total+=v[j+1];}}
  w=self.slice();for(i=n-1;i>0;i--)w[m.par[i]]+=w[i];
  var fg=m.fg;if(!fg)return;while(fg.firstChild)fg.removeChild(fg.firstChild);
  var h=document.createElement("p");h.className="hft";
  h.textContent="Flame graph of "+(a===0&&b===m.c.length-1?"the whole map":at(m,a)+" to "+at(m,b)+" (+100 ms) "+m.zone)+": "+many(total,"sample")+
    (heat>total?" (and "+(heat-total)+" without a call stack)":"")+"; widths are samples, fsync-like frames red; hover a frame for its name and count.";
  fg.appendChild(h);fg.dataset.range=a+"-"+b;fg.dataset.samples=total;
  if(!total)return;
  var W=1000,RH=16,x=[],depth=[],boxes=[],maxd=0,stack=[0];x[0]=0;depth[0]=0;
  while(stack.length){var nd=stack.pop(),pos=x[nd],wd=w[nd]/total*W;
    if(wd<0.3)continue;boxes.push(nd);if(depth[nd]>maxd)maxd=depth[nd];
    m.kids[nd].forEach(function(k){x[k]=pos;depth[k]=depth[nd]+1;pos+=w[k]/total*W;stack.push(k);});}
  var H=(maxd+1)*RH+2,svg=el("svg",{viewBox:"0 0 "+W+" "+H,role:"img"});
  boxes.forEach(function(nd){var wd=w[nd]/total*W,y=H-(depth[nd]+1)*RH,name=m.f[m.fr[nd]];
    var g=el("g",{}),r=el("rect",{x:x[nd].toFixed(2),y:y,width:wd.toFixed(2),height:RH-1,fill:m.red[m.fr[nd]]?"#e5383b":nd===0?"#d0d7de":hue(name)});
    var t=el("title",{});t.textContent=name+": "+many(w[nd],"sample")+" ("+(100*w[nd]/total).toFixed(1)+" %)";g.appendChild(t);g.appendChild(r);
    var fit=Math.floor((wd-6)/6.6);
    if(fit>=3){var s=el("text",{x:(x[nd]+3).toFixed(2),y:y+RH-5});s.textContent=name.length>fit?name.slice(0,fit-2)+"..":name;g.appendChild(s);}
    svg.appendChild(g);});
  fg.appendChild(svg);
}
maps.forEach(function(div){
  var m=setup(div),drag=null,last=m.c.length-1;
  function range(p,q){return[Math.min(p,q),Math.max(p,q)];}
  m.hov.addEventListener("mousemove",function(ev){var c=cellAt(m,ev);if(c===null)return;
    tip.textContent=at(m,c)+" "+m.zone+": "+many(m.c[c]||0,"sample");tip.style.display="block";
    tip.style.left=(ev.pageX+14)+"px";tip.style.top=(ev.pageY+12)+"px";
    if(drag!==null){var r=range(drag,c);outline(m,r[0],r[1]);}});
  m.hov.addEventListener("mouseleave",function(){tip.style.display="none";});
  m.hov.addEventListener("mousedown",function(ev){var c=cellAt(m,ev);if(c===null)return;drag=c;outline(m,c,c);ev.preventDefault();});
  m.hov.addEventListener("mouseup",function(ev){var c=cellAt(m,ev);if(drag===null||c===null){drag=null;return;}
    var r=range(drag,c);drag=null;outline(m,r[0],r[1]);draw(m,r[0],r[1]);});
  m.hov.addEventListener("dblclick",function(){drag=null;outline(m,null,null);draw(m,0,last);});
  div.classList.add("live");
  draw(m,0,last);
});
})();
"##;
