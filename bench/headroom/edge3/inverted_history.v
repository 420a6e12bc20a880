// kind: encoding
// change: the history flop stores ~a (set on reset) so the outputs read it directly and share the one inverter of a before the flop, a flop-polarity choice ABC cannot make across a register.
module edge3(input clk, input rst, input a, output reg rise, output reg fall, output reg low);
    reg np;     // ~p of the reference
    wire na = ~a;
    always @(posedge clk or posedge rst) begin
        if (rst) begin
            np <= 1'b1;
            rise <= 1'b0;
            fall <= 1'b0;
            low <= 1'b0;
        end else begin
            np <= na;
            rise <= a & np;
            fall <= ~(a | np);
            low <= na & np;
        end
    end
endmodule
