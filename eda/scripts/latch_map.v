module \$$_DLATCH_P_ (input E, input D, output Q); ${p_cell} _TECHMAP_REPLACE_ (.${p_d}(D), .${p_en}(E), .${p_q}(Q)); endmodule
module \$$_DLATCH_N_ (input E, input D, output Q); ${n_cell} _TECHMAP_REPLACE_ (.${n_d}(D), .${n_en}(E), .${n_q}(Q)); endmodule
