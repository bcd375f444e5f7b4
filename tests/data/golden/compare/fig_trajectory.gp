# fig_trajectory: regenerate with `gnuplot fig_trajectory.gp` in this directory.
# rhoflow 0.1.0, commit COMMIT
# command line: rhoflow compare --out c --quiet
# date: 2025-12-01T00:00:00Z
set encoding utf8
reset
set terminal pngcairo size 510,663 enhanced font 'sans,8'
set minussign
set output 'fig_trajectory.png'
set datafile missing '?'
set multiplot
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set logscale x
set xrange [0.01:80.47589578]
set grid
set format x ''
set bmargin at screen 0.5360
set tmargin at screen 0.9830
set ylabel 'alignment ρ = ⟨q, ξ⟩'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 4 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_trajectory.dat' using 1:4:5 with filledcurves lc rgb '#c6dbef' title 'SGA 10–90%', '' using 1:11 with lines lw 1 lc rgb '#969696' title 'single trials', '' using 1:12 with lines lw 1 lc rgb '#969696' notitle, '' using 1:13 with lines lw 1 lc rgb '#969696' notitle, '' using 1:14 with lines lw 1 lc rgb '#969696' notitle, '' using 1:15 with lines lw 1 lc rgb '#969696' notitle, '' using 1:9 with lines lw 1.5 dt 3 lc rgb '#e6550d' title 'predicted 10–90%', '' using 1:10 with lines lw 1.5 dt 3 lc rgb '#e6550d' notitle, '' using 1:8 with lines lw 2.5 lc rgb '#e6550d' title 'finite-step prediction', '' using 1:3 with lines lw 2.5 lc rgb '#08519c' title 'SGA mean', '' using 1:2 with lines lw 2.5 dt 2 lc rgb '#a50f15' title 'mean-field ODE', 'fig_trajectory_gap.dat' using 1:(1/0) with yerrorbars pt 7 ps 0.4 lc rgb '#08519c' title 'SGA mean, 95% CI'
unset key
set format x '10^{%T}'
set xlabel 't = Σ_{j<k} η_j (ODE time)'
set bmargin at screen 0.1702
set tmargin at screen 0.4953
set logscale y
set yrange [0.0024150474330999739:1.3942444387056854]
set ytics ('0.003' 0.0030000000000000001, '0.01' 0.01, '0.03' 0.029999999999999999, '0.1' 0.10000000000000001, '0.3' 0.30000000000000004, '1' 1)
set ylabel '1 − ρ'
plot 'fig_trajectory_gap.dat' using 1:2:3:4 with yerrorbars pt 7 ps 0.4 lc rgb '#08519c' notitle, '' using 1:2 with lines lw 1 lc rgb '#08519c' notitle, 'fig_trajectory.dat' using 1:(1-$2 > 0 ? 1-$2 : 1/0) with lines lw 2.5 dt 2 lc rgb '#a50f15' notitle, 'fig_trajectory_gap.dat' using 1:6 with lines lw 2.5 lc rgb '#e6550d' notitle
unset multiplot
unset output
reset
set terminal pdfcairo size 3.400in,4.420in enhanced font 'sans,8'
set minussign
set output 'fig_trajectory.pdf'
set datafile missing '?'
set multiplot
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set logscale x
set xrange [0.01:80.47589578]
set grid
set format x ''
set bmargin at screen 0.5360
set tmargin at screen 0.9830
set ylabel 'alignment ρ = ⟨q, ξ⟩'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 4 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_trajectory.dat' using 1:4:5 with filledcurves lc rgb '#c6dbef' title 'SGA 10–90%', '' using 1:11 with lines lw 1 lc rgb '#969696' title 'single trials', '' using 1:12 with lines lw 1 lc rgb '#969696' notitle, '' using 1:13 with lines lw 1 lc rgb '#969696' notitle, '' using 1:14 with lines lw 1 lc rgb '#969696' notitle, '' using 1:15 with lines lw 1 lc rgb '#969696' notitle, '' using 1:9 with lines lw 1.5 dt 3 lc rgb '#e6550d' title 'predicted 10–90%', '' using 1:10 with lines lw 1.5 dt 3 lc rgb '#e6550d' notitle, '' using 1:8 with lines lw 2.5 lc rgb '#e6550d' title 'finite-step prediction', '' using 1:3 with lines lw 2.5 lc rgb '#08519c' title 'SGA mean', '' using 1:2 with lines lw 2.5 dt 2 lc rgb '#a50f15' title 'mean-field ODE', 'fig_trajectory_gap.dat' using 1:(1/0) with yerrorbars pt 7 ps 0.4 lc rgb '#08519c' title 'SGA mean, 95% CI'
unset key
set format x '10^{%T}'
set xlabel 't = Σ_{j<k} η_j (ODE time)'
set bmargin at screen 0.1702
set tmargin at screen 0.4953
set logscale y
set yrange [0.0024150474330999739:1.3942444387056854]
set ytics ('0.003' 0.0030000000000000001, '0.01' 0.01, '0.03' 0.029999999999999999, '0.1' 0.10000000000000001, '0.3' 0.30000000000000004, '1' 1)
set ylabel '1 − ρ'
plot 'fig_trajectory_gap.dat' using 1:2:3:4 with yerrorbars pt 7 ps 0.4 lc rgb '#08519c' notitle, '' using 1:2 with lines lw 1 lc rgb '#08519c' notitle, 'fig_trajectory.dat' using 1:(1-$2 > 0 ? 1-$2 : 1/0) with lines lw 2.5 dt 2 lc rgb '#a50f15' notitle, 'fig_trajectory_gap.dat' using 1:6 with lines lw 2.5 lc rgb '#e6550d' notitle
unset multiplot
unset output
reset
set terminal svg size 245,318 enhanced font 'sans,8' background rgb 'white'
set minussign
set output 'fig_trajectory.svg'
set datafile missing '?'
set multiplot
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set logscale x
set xrange [0.01:80.47589578]
set grid
set format x ''
set bmargin at screen 0.5360
set tmargin at screen 0.9830
set ylabel 'alignment ρ = ⟨q, ξ⟩'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 4 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_trajectory.dat' using 1:4:5 with filledcurves lc rgb '#c6dbef' title 'SGA 10–90%', '' using 1:11 with lines lw 1 lc rgb '#969696' title 'single trials', '' using 1:12 with lines lw 1 lc rgb '#969696' notitle, '' using 1:13 with lines lw 1 lc rgb '#969696' notitle, '' using 1:14 with lines lw 1 lc rgb '#969696' notitle, '' using 1:15 with lines lw 1 lc rgb '#969696' notitle, '' using 1:9 with lines lw 1.5 dt 3 lc rgb '#e6550d' title 'predicted 10–90%', '' using 1:10 with lines lw 1.5 dt 3 lc rgb '#e6550d' notitle, '' using 1:8 with lines lw 2.5 lc rgb '#e6550d' title 'finite-step prediction', '' using 1:3 with lines lw 2.5 lc rgb '#08519c' title 'SGA mean', '' using 1:2 with lines lw 2.5 dt 2 lc rgb '#a50f15' title 'mean-field ODE', 'fig_trajectory_gap.dat' using 1:(1/0) with yerrorbars pt 7 ps 0.4 lc rgb '#08519c' title 'SGA mean, 95% CI'
unset key
set format x '10^{%T}'
set xlabel 't = Σ_{j<k} η_j (ODE time)'
set bmargin at screen 0.1702
set tmargin at screen 0.4953
set logscale y
set yrange [0.0024150474330999739:1.3942444387056854]
set ytics ('0.003' 0.0030000000000000001, '0.01' 0.01, '0.03' 0.029999999999999999, '0.1' 0.10000000000000001, '0.3' 0.30000000000000004, '1' 1)
set ylabel '1 − ρ'
plot 'fig_trajectory_gap.dat' using 1:2:3:4 with yerrorbars pt 7 ps 0.4 lc rgb '#08519c' notitle, '' using 1:2 with lines lw 1 lc rgb '#08519c' notitle, 'fig_trajectory.dat' using 1:(1-$2 > 0 ? 1-$2 : 1/0) with lines lw 2.5 dt 2 lc rgb '#a50f15' notitle, 'fig_trajectory_gap.dat' using 1:6 with lines lw 2.5 lc rgb '#e6550d' notitle
unset multiplot
unset output
reset
set terminal cairolatex pdf size 3.400in,4.420in color font ',8' header '\footnotesize'
set output 'fig_trajectory-latex.tex'
set datafile missing '?'
set multiplot
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set logscale x
set xrange [0.01:80.47589578]
set grid
set format x ''
set bmargin at screen 0.5360
set tmargin at screen 0.9830
set ylabel 'alignment $\rho = \langle q, \xi\rangle$'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 4 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_trajectory.dat' using 1:4:5 with filledcurves lc rgb '#c6dbef' title 'SGA 10--90\,\%', '' using 1:11 with lines lw 1 lc rgb '#969696' title 'single trials', '' using 1:12 with lines lw 1 lc rgb '#969696' notitle, '' using 1:13 with lines lw 1 lc rgb '#969696' notitle, '' using 1:14 with lines lw 1 lc rgb '#969696' notitle, '' using 1:15 with lines lw 1 lc rgb '#969696' notitle, '' using 1:9 with lines lw 1.5 dt 3 lc rgb '#e6550d' title 'predicted 10--90\,\%', '' using 1:10 with lines lw 1.5 dt 3 lc rgb '#e6550d' notitle, '' using 1:8 with lines lw 2.5 lc rgb '#e6550d' title 'finite-step prediction', '' using 1:3 with lines lw 2.5 lc rgb '#08519c' title 'SGA mean', '' using 1:2 with lines lw 2.5 dt 2 lc rgb '#a50f15' title 'mean-field ODE', 'fig_trajectory_gap.dat' using 1:(1/0) with yerrorbars pt 7 ps 0.4 lc rgb '#08519c' title 'SGA mean, 95\,\% CI'
unset key
set format x '$10^{%T}$'
set xlabel '$t = \sum_{j<k}\eta_j$ (ODE time)'
set bmargin at screen 0.2007
set tmargin at screen 0.4953
set logscale y
set yrange [0.0024150474330999739:1.3942444387056854]
set ytics ('$0.003$' 0.0030000000000000001, '$0.01$' 0.01, '$0.03$' 0.029999999999999999, '$0.1$' 0.10000000000000001, '$0.3$' 0.30000000000000004, '$1$' 1)
set ylabel '$1-\rho$'
plot 'fig_trajectory_gap.dat' using 1:2:3:4 with yerrorbars pt 7 ps 0.4 lc rgb '#08519c' notitle, '' using 1:2 with lines lw 1 lc rgb '#08519c' notitle, 'fig_trajectory.dat' using 1:(1-$2 > 0 ? 1-$2 : 1/0) with lines lw 2.5 dt 2 lc rgb '#a50f15' notitle, 'fig_trajectory_gap.dat' using 1:6 with lines lw 2.5 lc rgb '#e6550d' notitle
unset multiplot
unset output
