# fig_plateau: regenerate with `gnuplot fig_plateau.gp` in this directory.
# rhoflow 0.1.0, commit COMMIT
# command line: rhoflow compare --out c --quiet
# date: 2025-12-01T00:00:00Z
set encoding utf8
reset
set terminal pngcairo size 510,408 enhanced font 'sans,8'
set minussign
set output 'fig_plateau.png'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.2377
set tmargin at screen 0.9724
set logscale x
set grid
set xrange [0.0017583786230817796:0.011374114617560287]
set xtics ('0.002' 0.002, '0.005' 0.0050000000000000001, '0.01' 0.01)
set xlabel 'step size η'
set ylabel 'alignment ρ'
set offsets 0, 0, graph 0.05, graph 0.05
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 3 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_plateau.dat' using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.5 lc rgb '#e6550d' title 'finite-step attractor ρ*(η)', 'fig_plateau_sga.dat' using 1:3:4:5 with yerrorbars pt 6 ps 0.6 lc rgb '#08519c' title 'SGA mean at step k, 95% CI (x = η_k)', 1 with lines lw 2.5 dt 2 lc rgb '#a50f15' title 'mean-field ODE''s attractor ρ = 1'
unset output
reset
set terminal pdfcairo size 3.400in,2.720in enhanced font 'sans,8'
set minussign
set output 'fig_plateau.pdf'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.2377
set tmargin at screen 0.9724
set logscale x
set grid
set xrange [0.0017583786230817796:0.011374114617560287]
set xtics ('0.002' 0.002, '0.005' 0.0050000000000000001, '0.01' 0.01)
set xlabel 'step size η'
set ylabel 'alignment ρ'
set offsets 0, 0, graph 0.05, graph 0.05
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 3 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_plateau.dat' using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.5 lc rgb '#e6550d' title 'finite-step attractor ρ*(η)', 'fig_plateau_sga.dat' using 1:3:4:5 with yerrorbars pt 6 ps 0.6 lc rgb '#08519c' title 'SGA mean at step k, 95% CI (x = η_k)', 1 with lines lw 2.5 dt 2 lc rgb '#a50f15' title 'mean-field ODE''s attractor ρ = 1'
unset output
reset
set terminal svg size 245,196 enhanced font 'sans,8' background rgb 'white'
set minussign
set output 'fig_plateau.svg'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.2377
set tmargin at screen 0.9724
set logscale x
set grid
set xrange [0.0017583786230817796:0.011374114617560287]
set xtics ('0.002' 0.002, '0.005' 0.0050000000000000001, '0.01' 0.01)
set xlabel 'step size η'
set ylabel 'alignment ρ'
set offsets 0, 0, graph 0.05, graph 0.05
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 3 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_plateau.dat' using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.5 lc rgb '#e6550d' title 'finite-step attractor ρ*(η)', 'fig_plateau_sga.dat' using 1:3:4:5 with yerrorbars pt 6 ps 0.6 lc rgb '#08519c' title 'SGA mean at step k, 95% CI (x = η_k)', 1 with lines lw 2.5 dt 2 lc rgb '#a50f15' title 'mean-field ODE''s attractor ρ = 1'
unset output
reset
set terminal cairolatex pdf size 3.400in,2.720in color font ',8' header '\footnotesize'
set output 'fig_plateau-latex.tex'
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.2874
set tmargin at screen 0.9724
set logscale x
set grid
set xrange [0.0017583786230817796:0.011374114617560287]
set xtics ('$0.002$' 0.002, '$0.005$' 0.0050000000000000001, '$0.01$' 0.01)
set xlabel 'step size $\eta$'
set ylabel 'alignment $\rho$'
set offsets 0, 0, graph 0.05, graph 0.05
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 3 samplen 2 spacing 1.05 reverse Left width -2
plot 'fig_plateau.dat' using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.5 lc rgb '#e6550d' title 'finite-step attractor $\rho^*(\eta)$', 'fig_plateau_sga.dat' using 1:3:4:5 with yerrorbars pt 6 ps 0.6 lc rgb '#08519c' title 'SGA mean at step $k$, 95\,\% CI ($x = \eta_k$)', 1 with lines lw 2.5 dt 2 lc rgb '#a50f15' title 'mean-field ODE''s attractor $\rho = 1$'
unset output
