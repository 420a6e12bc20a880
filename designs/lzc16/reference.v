// Reference for lzc16: scan upward so the highest set bit decides the count.
module lzc16 (
    input      [15:0] d,
    output reg [4:0]  count,
    output            zero
);
    integer i;
    always @* begin
        count = 5'd16;
        for (i = 0; i < 16; i = i + 1)
            if (d[i]) count = 15 - i;
    end
    assign zero = (d == 16'd0);
endmodule
