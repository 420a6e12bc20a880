// kind: encoding
// change: the history flop stores ~a (set on reset) so rise = a & na0 and down = ~(a | na0) share the single inverter feeding the flop, a flop-polarity choice ABC cannot make across a register.
module edge_detect(
	input clk,
	input rst_n,
	input a,

	output reg rise,
	output reg down
);
	reg na0;   // ~a0 of the reference
    always@(posedge clk or negedge rst_n) begin
        if(~rst_n) begin
            rise <= 1'b0;
            down <= 1'b0;
            na0 <= 1'b1;
        end
        else begin
            rise <= a & na0;
            down <= ~(a | na0);
            na0 <= ~a;
        end
    end
endmodule
