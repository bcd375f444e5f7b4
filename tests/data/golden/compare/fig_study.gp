# fig_study: regenerate with `gnuplot fig_study.gp` in this directory.
# rhoflow 0.1.0, commit COMMIT
# command line: rhoflow compare --out c --quiet
# date: 2025-12-01T00:00:00Z
set encoding utf8
reset
set terminal pngcairo size 510,408 enhanced font 'sans,8'
set minussign
set output 'fig_study.png'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.1989
set tmargin at screen 0.9724
set logscale xy
set grid
set xrange [0.0018946457081379978:0.10556063286183154]
set xtics ('0.002' 0.002, '0.005' 0.0050000000000000001, '0.01' 0.01, '0.02' 0.02, '0.05' 0.050000000000000003, '0.1' 0.10000000000000001)
set yrange [0.02:0.5]
set ytics ('0.02' 0.02, '0.05' 0.050000000000000003, '0.1' 0.10000000000000001, '0.2' 0.20000000000000001, '0.5' 0.5)
set xlabel 'initial step size η_0 (η_0 k_0 fixed)'
set ylabel 'mean sup_k |ρ_k − ρ(t_k)|'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 2 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_study.dat' using 1:7:8 with filledcurves fs transparent solid 0.3 lc rgb '#fdae6b' title 'fit, 95% band', '' using 1:6 with lines lw 2 lc rgb '#e6550d' title 'fit: slope 0.638 ± 0.018', '' using 1:2:3:4 with yerrorbars pt 7 ps 0.6 lc rgb '#08519c' title 'mean, 95% CI', 0.026652266336335807 * (x / 0.0025000000000000001)**0.5 with lines lw 2 dt 2 lc rgb '#252525' title 'slope 1/2'
unset output
reset
set terminal pdfcairo size 3.400in,2.720in enhanced font 'sans,8'
set minussign
set output 'fig_study.pdf'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.1989
set tmargin at screen 0.9724
set logscale xy
set grid
set xrange [0.0018946457081379978:0.10556063286183154]
set xtics ('0.002' 0.002, '0.005' 0.0050000000000000001, '0.01' 0.01, '0.02' 0.02, '0.05' 0.050000000000000003, '0.1' 0.10000000000000001)
set yrange [0.02:0.5]
set ytics ('0.02' 0.02, '0.05' 0.050000000000000003, '0.1' 0.10000000000000001, '0.2' 0.20000000000000001, '0.5' 0.5)
set xlabel 'initial step size η_0 (η_0 k_0 fixed)'
set ylabel 'mean sup_k |ρ_k − ρ(t_k)|'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 2 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_study.dat' using 1:7:8 with filledcurves fs transparent solid 0.3 lc rgb '#fdae6b' title 'fit, 95% band', '' using 1:6 with lines lw 2 lc rgb '#e6550d' title 'fit: slope 0.638 ± 0.018', '' using 1:2:3:4 with yerrorbars pt 7 ps 0.6 lc rgb '#08519c' title 'mean, 95% CI', 0.026652266336335807 * (x / 0.0025000000000000001)**0.5 with lines lw 2 dt 2 lc rgb '#252525' title 'slope 1/2'
unset output
reset
set terminal svg size 245,196 enhanced font 'sans,8' background rgb 'white'
set minussign
set output 'fig_study.svg'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.1989
set tmargin at screen 0.9724
set logscale xy
set grid
set xrange [0.0018946457081379978:0.10556063286183154]
set xtics ('0.002' 0.002, '0.005' 0.0050000000000000001, '0.01' 0.01, '0.02' 0.02, '0.05' 0.050000000000000003, '0.1' 0.10000000000000001)
set yrange [0.02:0.5]
set ytics ('0.02' 0.02, '0.05' 0.050000000000000003, '0.1' 0.10000000000000001, '0.2' 0.20000000000000001, '0.5' 0.5)
set xlabel 'initial step size η_0 (η_0 k_0 fixed)'
set ylabel 'mean sup_k |ρ_k − ρ(t_k)|'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 2 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_study.dat' using 1:7:8 with filledcurves fs transparent solid 0.3 lc rgb '#fdae6b' title 'fit, 95% band', '' using 1:6 with lines lw 2 lc rgb '#e6550d' title 'fit: slope 0.638 ± 0.018', '' using 1:2:3:4 with yerrorbars pt 7 ps 0.6 lc rgb '#08519c' title 'mean, 95% CI', 0.026652266336335807 * (x / 0.0025000000000000001)**0.5 with lines lw 2 dt 2 lc rgb '#252525' title 'slope 1/2'
unset output
reset
set terminal cairolatex pdf size 3.400in,2.720in color font ',8' header '\footnotesize'
set output 'fig_study-latex.tex'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.2486
set tmargin at screen 0.9724
set logscale xy
set grid
set xrange [0.0018946457081379978:0.10556063286183154]
set xtics ('$0.002$' 0.002, '$0.005$' 0.0050000000000000001, '$0.01$' 0.01, '$0.02$' 0.02, '$0.05$' 0.050000000000000003, '$0.1$' 0.10000000000000001)
set yrange [0.02:0.5]
set ytics ('$0.02$' 0.02, '$0.05$' 0.050000000000000003, '$0.1$' 0.10000000000000001, '$0.2$' 0.20000000000000001, '$0.5$' 0.5)
set xlabel 'initial step size $\eta_0$ ($\eta_0 k_0$ fixed)'
set ylabel 'mean $\sup_k|\rho_k - \rho(t_k)|$'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 2 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_study.dat' using 1:7:8 with filledcurves fs transparent solid 0.3 lc rgb '#fdae6b' title 'fit, 95\,\% band', '' using 1:6 with lines lw 2 lc rgb '#e6550d' title 'fit: slope $0.638 \pm 0.018$', '' using 1:2:3:4 with yerrorbars pt 7 ps 0.6 lc rgb '#08519c' title 'mean, 95\,\% CI', 0.026652266336335807 * (x / 0.0025000000000000001)**0.5 with lines lw 2 dt 2 lc rgb '#252525' title 'slope $1/2$'
unset output
