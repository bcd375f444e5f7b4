# fig_gap: regenerate with `gnuplot fig_gap.gp` in this directory.
# rhoflow 0.1.0, commit COMMIT
# command line: rhoflow compare --out c --quiet
# date: 2025-12-01T00:00:00Z
set encoding utf8
reset
set terminal pngcairo size 510,433 enhanced font 'sans,8'
set minussign
set output 'fig_gap.png'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.2238
set tmargin at screen 0.9740
set logscale xy
set grid
set xrange [0.0050541663263217532:100.16854056007234]
set xtics ('0.01' 0.01, '0.03' 0.029999999999999999, '0.1' 0.10000000000000001, '0.3' 0.30000000000000004, '1' 1, '3' 3, '10' 10, '30' 30, '100' 100)
set yrange [0.0089299800507238562:0.11949797450489176]
set ytics ('0.01' 0.01, '0.02' 0.02, '0.05' 0.050000000000000003, '0.1' 0.10000000000000001)
set xlabel 'ODE time t'
set ylabel 'gap D_T(t), T = 10'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 3 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_gap.dat' using 1:4 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#08519c' title 'mean', '' using 1:5 with lines lw 1.5 lc rgb '#31a354' title 'median', '' using 1:6 with lines lw 1.5 dt 2 lc rgb '#e6550d' title '90% quantile', '' using 1:(0.186415518*$3) with lines lw 2 dt 4 lc rgb '#54278f' title '∝ √η(t)', '' using 1:(3.0927003*$2) with lines lw 2 dt 5 lc rgb '#8c510a' title '∝ η(t)'
unset output
reset
set terminal pdfcairo size 3.400in,2.890in enhanced font 'sans,8'
set minussign
set output 'fig_gap.pdf'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.2238
set tmargin at screen 0.9740
set logscale xy
set grid
set xrange [0.0050541663263217532:100.16854056007234]
set xtics ('0.01' 0.01, '0.03' 0.029999999999999999, '0.1' 0.10000000000000001, '0.3' 0.30000000000000004, '1' 1, '3' 3, '10' 10, '30' 30, '100' 100)
set yrange [0.0089299800507238562:0.11949797450489176]
set ytics ('0.01' 0.01, '0.02' 0.02, '0.05' 0.050000000000000003, '0.1' 0.10000000000000001)
set xlabel 'ODE time t'
set ylabel 'gap D_T(t), T = 10'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 3 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_gap.dat' using 1:4 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#08519c' title 'mean', '' using 1:5 with lines lw 1.5 lc rgb '#31a354' title 'median', '' using 1:6 with lines lw 1.5 dt 2 lc rgb '#e6550d' title '90% quantile', '' using 1:(0.186415518*$3) with lines lw 2 dt 4 lc rgb '#54278f' title '∝ √η(t)', '' using 1:(3.0927003*$2) with lines lw 2 dt 5 lc rgb '#8c510a' title '∝ η(t)'
unset output
reset
set terminal svg size 245,208 enhanced font 'sans,8' background rgb 'white'
set minussign
set output 'fig_gap.svg'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.2238
set tmargin at screen 0.9740
set logscale xy
set grid
set xrange [0.0050541663263217532:100.16854056007234]
set xtics ('0.01' 0.01, '0.03' 0.029999999999999999, '0.1' 0.10000000000000001, '0.3' 0.30000000000000004, '1' 1, '3' 3, '10' 10, '30' 30, '100' 100)
set yrange [0.0089299800507238562:0.11949797450489176]
set ytics ('0.01' 0.01, '0.02' 0.02, '0.05' 0.050000000000000003, '0.1' 0.10000000000000001)
set xlabel 'ODE time t'
set ylabel 'gap D_T(t), T = 10'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 3 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_gap.dat' using 1:4 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#08519c' title 'mean', '' using 1:5 with lines lw 1.5 lc rgb '#31a354' title 'median', '' using 1:6 with lines lw 1.5 dt 2 lc rgb '#e6550d' title '90% quantile', '' using 1:(0.186415518*$3) with lines lw 2 dt 4 lc rgb '#54278f' title '∝ √η(t)', '' using 1:(3.0927003*$2) with lines lw 2 dt 5 lc rgb '#8c510a' title '∝ η(t)'
unset output
reset
set terminal cairolatex pdf size 3.400in,2.890in color font ',8' header '\footnotesize'
set output 'fig_gap-latex.tex'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.2705
set tmargin at screen 0.9740
set logscale xy
set grid
set xrange [0.0050541663263217532:100.16854056007234]
set xtics ('$0.01$' 0.01, '$0.03$' 0.029999999999999999, '$0.1$' 0.10000000000000001, '$0.3$' 0.30000000000000004, '$1$' 1, '$3$' 3, '$10$' 10, '$30$' 30, '$100$' 100)
set yrange [0.0089299800507238562:0.11949797450489176]
set ytics ('$0.01$' 0.01, '$0.02$' 0.02, '$0.05$' 0.050000000000000003, '$0.1$' 0.10000000000000001)
set xlabel 'ODE time $t$'
set ylabel 'gap $D_T(t)$, $T = 10$'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 3 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_gap.dat' using 1:4 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#08519c' title 'mean', '' using 1:5 with lines lw 1.5 lc rgb '#31a354' title 'median', '' using 1:6 with lines lw 1.5 dt 2 lc rgb '#e6550d' title '90\,\% quantile', '' using 1:(0.186415518*$3) with lines lw 2 dt 4 lc rgb '#54278f' title '$\propto\sqrt{\eta(t)}$', '' using 1:(3.0927003*$2) with lines lw 2 dt 5 lc rgb '#8c510a' title '$\propto\eta(t)$'
unset output
