// edge3: the previous sample of a is kept in p; the outputs compare it with the new one
module edge3(input clk, input rst, input a, output reg rise, output reg fall, output reg low);
    reg p;
    always @(posedge clk or posedge rst) begin
        if (rst) begin
            p <= 1'b0;
            rise <= 1'b0;
            fall <= 1'b0;
            low <= 1'b0;
        end else begin
            p <= a;
            rise <= a & ~p;
            fall <= ~a & p;
            low <= ~a & ~p;
        end
    end
endmodule
