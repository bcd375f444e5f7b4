# fig_field: regenerate with `gnuplot fig_field.gp` in this directory.
# rhoflow 0.1.0, commit COMMIT
# command line: rhoflow compare --out c --quiet
# date: 2025-12-01T00:00:00Z
set encoding utf8
reset
set terminal pngcairo size 510,587 enhanced font 'sans,8'
set minussign
set output 'fig_field.png'
set multiplot
set grid
set xzeroaxis lt -1
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.5533
set tmargin at screen 0.9808
set xrange [-1.04:1.04]
set xtics ('−1' -1, '−0.5' -0.5, '0' 0, '0.5' 0.5, '1' 1)
set yrange [-0.018818196516677706:0.39513331785874656]
set ytics ('0' 0, '0.1' 0.10000000000000001, '0.2' 0.20000000000000001, '0.3' 0.30000000000000004)
set xlabel 'alignment ρ'
set ylabel 'F(ρ) = (1 − ρ^2) j''(ρ)'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 1 samplen 2 spacing 1.05 reverse Left width -2
set clip two
plot 'fig_field.dat' using 1:2 with lines lw 2 lc rgb '#08519c' title 'F', 'fig_field_equilibria.dat' using 1:($2 == 1 ? 0 : 1/0) with points pt 7 ps 1 lc rgb '#2ca02c' title 'stable', '' using 1:($2 == 0 ? 0 : 1/0) with points pt 6 ps 1.2 lw 2 lc rgb '#d62728' title 'unstable'
unset key
set lmargin at screen 0.2026
set rmargin at screen 0.9600
set bmargin at screen 0.1114
set tmargin at screen 0.4766
set xrange [-1.001080474297982:-0.9773100397423804]
set xtics ('−1' -1, '−0.995' -0.995, '−0.99' -0.98999999999999999, '−0.985' -0.98499999999999999, '−0.98' -0.97999999999999998)
set yrange [-4.5358975424775722e-06:4.6444856906775027e-05]
set ytics ('0' 0, '10^{-5}' 1.0000000000000001e-05, '2·10^{-5}' 2.0000000000000002e-05, '3·10^{-5}' 3.0000000000000004e-05, '4·10^{-5}' 4.0000000000000003e-05)
set xlabel 'zoom near ρ = −1'
set ylabel 'F(ρ)'
plot 'fig_field.dat' using 1:($1 >= -1 && $1 <= -0.978390514 ? $2 : 1/0) with lines lw 2 lc rgb '#08519c' notitle, 'fig_field_equilibria.dat' using 1:($2 == 1 ? 0 : 1/0) with points pt 7 ps 1 lc rgb '#2ca02c' notitle, '' using 1:($2 == 0 ? 0 : 1/0) with points pt 6 ps 1.2 lw 2 lc rgb '#d62728' notitle
unset multiplot
unset output
reset
set terminal pdfcairo size 3.400in,3.910in enhanced font 'sans,8'
set minussign
set output 'fig_field.pdf'
set multiplot
set grid
set xzeroaxis lt -1
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.5533
set tmargin at screen 0.9808
set xrange [-1.04:1.04]
set xtics ('−1' -1, '−0.5' -0.5, '0' 0, '0.5' 0.5, '1' 1)
set yrange [-0.018818196516677706:0.39513331785874656]
set ytics ('0' 0, '0.1' 0.10000000000000001, '0.2' 0.20000000000000001, '0.3' 0.30000000000000004)
set xlabel 'alignment ρ'
set ylabel 'F(ρ) = (1 − ρ^2) j''(ρ)'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 1 samplen 2 spacing 1.05 reverse Left width -2
set clip two
plot 'fig_field.dat' using 1:2 with lines lw 2 lc rgb '#08519c' title 'F', 'fig_field_equilibria.dat' using 1:($2 == 1 ? 0 : 1/0) with points pt 7 ps 1 lc rgb '#2ca02c' title 'stable', '' using 1:($2 == 0 ? 0 : 1/0) with points pt 6 ps 1.2 lw 2 lc rgb '#d62728' title 'unstable'
unset key
set lmargin at screen 0.2026
set rmargin at screen 0.9600
set bmargin at screen 0.1114
set tmargin at screen 0.4766
set xrange [-1.001080474297982:-0.9773100397423804]
set xtics ('−1' -1, '−0.995' -0.995, '−0.99' -0.98999999999999999, '−0.985' -0.98499999999999999, '−0.98' -0.97999999999999998)
set yrange [-4.5358975424775722e-06:4.6444856906775027e-05]
set ytics ('0' 0, '10^{-5}' 1.0000000000000001e-05, '2·10^{-5}' 2.0000000000000002e-05, '3·10^{-5}' 3.0000000000000004e-05, '4·10^{-5}' 4.0000000000000003e-05)
set xlabel 'zoom near ρ = −1'
set ylabel 'F(ρ)'
plot 'fig_field.dat' using 1:($1 >= -1 && $1 <= -0.978390514 ? $2 : 1/0) with lines lw 2 lc rgb '#08519c' notitle, 'fig_field_equilibria.dat' using 1:($2 == 1 ? 0 : 1/0) with points pt 7 ps 1 lc rgb '#2ca02c' notitle, '' using 1:($2 == 0 ? 0 : 1/0) with points pt 6 ps 1.2 lw 2 lc rgb '#d62728' notitle
unset multiplot
unset output
reset
set terminal svg size 245,282 enhanced font 'sans,8' background rgb 'white'
set minussign
set output 'fig_field.svg'
set multiplot
set grid
set xzeroaxis lt -1
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.5533
set tmargin at screen 0.9808
set xrange [-1.04:1.04]
set xtics ('−1' -1, '−0.5' -0.5, '0' 0, '0.5' 0.5, '1' 1)
set yrange [-0.018818196516677706:0.39513331785874656]
set ytics ('0' 0, '0.1' 0.10000000000000001, '0.2' 0.20000000000000001, '0.3' 0.30000000000000004)
set xlabel 'alignment ρ'
set ylabel 'F(ρ) = (1 − ρ^2) j''(ρ)'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 1 samplen 2 spacing 1.05 reverse Left width -2
set clip two
plot 'fig_field.dat' using 1:2 with lines lw 2 lc rgb '#08519c' title 'F', 'fig_field_equilibria.dat' using 1:($2 == 1 ? 0 : 1/0) with points pt 7 ps 1 lc rgb '#2ca02c' title 'stable', '' using 1:($2 == 0 ? 0 : 1/0) with points pt 6 ps 1.2 lw 2 lc rgb '#d62728' title 'unstable'
unset key
set lmargin at screen 0.2026
set rmargin at screen 0.9600
set bmargin at screen 0.1114
set tmargin at screen 0.4766
set xrange [-1.001080474297982:-0.9773100397423804]
set xtics ('−1' -1, '−0.995' -0.995, '−0.99' -0.98999999999999999, '−0.985' -0.98499999999999999, '−0.98' -0.97999999999999998)
set yrange [-4.5358975424775722e-06:4.6444856906775027e-05]
set ytics ('0' 0, '10^{-5}' 1.0000000000000001e-05, '2·10^{-5}' 2.0000000000000002e-05, '3·10^{-5}' 3.0000000000000004e-05, '4·10^{-5}' 4.0000000000000003e-05)
set xlabel 'zoom near ρ = −1'
set ylabel 'F(ρ)'
plot 'fig_field.dat' using 1:($1 >= -1 && $1 <= -0.978390514 ? $2 : 1/0) with lines lw 2 lc rgb '#08519c' notitle, 'fig_field_equilibria.dat' using 1:($2 == 1 ? 0 : 1/0) with points pt 7 ps 1 lc rgb '#2ca02c' notitle, '' using 1:($2 == 0 ? 0 : 1/0) with points pt 6 ps 1.2 lw 2 lc rgb '#d62728' notitle
unset multiplot
unset output
reset
set terminal cairolatex pdf size 3.400in,3.910in color font ',8' header '\footnotesize'
set output 'fig_field-latex.tex'
set multiplot
set grid
set xzeroaxis lt -1
set lmargin at screen 0.2026
set rmargin at screen 0.9647
set bmargin at screen 0.5878
set tmargin at screen 0.9808
set xrange [-1.04:1.04]
set xtics ('$-1$' -1, '$-0.5$' -0.5, '$0$' 0, '$0.5$' 0.5, '$1$' 1)
set yrange [-0.018818196516677706:0.39513331785874656]
set ytics ('$0$' 0, '$0.1$' 0.10000000000000001, '$0.2$' 0.20000000000000001, '$0.3$' 0.30000000000000004)
set xlabel 'alignment $\rho$'
set ylabel '$F(\rho) = (1-\rho^2)\,j''(\rho)$'
set key at screen 0.5, screen 0.01 center bottom vertical maxrows 1 samplen 2 spacing 1.05 reverse Left width -2
set clip two
plot 'fig_field.dat' using 1:2 with lines lw 2 lc rgb '#08519c' title '$F$', 'fig_field_equilibria.dat' using 1:($2 == 1 ? 0 : 1/0) with points pt 7 ps 1 lc rgb '#2ca02c' title 'stable', '' using 1:($2 == 0 ? 0 : 1/0) with points pt 6 ps 1.2 lw 2 lc rgb '#d62728' title 'unstable'
unset key
set lmargin at screen 0.2026
set rmargin at screen 0.9600
set bmargin at screen 0.1459
set tmargin at screen 0.4766
set xrange [-1.001080474297982:-0.9773100397423804]
set xtics ('$-1$' -1, '$-0.995$' -0.995, '$-0.99$' -0.98999999999999999, '$-0.985$' -0.98499999999999999, '$-0.98$' -0.97999999999999998)
set yrange [-4.5358975424775722e-06:4.6444856906775027e-05]
set ytics ('$0$' 0, '$10^{-5}$' 1.0000000000000001e-05, '$2\cdot 10^{-5}$' 2.0000000000000002e-05, '$3\cdot 10^{-5}$' 3.0000000000000004e-05, '$4\cdot 10^{-5}$' 4.0000000000000003e-05)
set xlabel 'zoom near $\rho = -1$'
set ylabel '$F(\rho)$'
plot 'fig_field.dat' using 1:($1 >= -1 && $1 <= -0.978390514 ? $2 : 1/0) with lines lw 2 lc rgb '#08519c' notitle, 'fig_field_equilibria.dat' using 1:($2 == 1 ? 0 : 1/0) with points pt 7 ps 1 lc rgb '#2ca02c' notitle, '' using 1:($2 == 0 ? 0 : 1/0) with points pt 6 ps 1.2 lw 2 lc rgb '#d62728' notitle
unset multiplot
unset output
