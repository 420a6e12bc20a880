// Reference for signmag16: the sign cases and the magnitude compare written out, each with its own adder or
// subtractor.
module signmag16 (
    input      [15:0] a,
    input      [15:0] b,
    output reg [15:0] y
);
    always @* begin
        if (a[15] == b[15]) begin
            y[14:0] = a[14:0] + b[14:0];
            y[15]   = a[15];
        end else if (a[14:0] >= b[14:0]) begin
            y[14:0] = a[14:0] - b[14:0];
            y[15]   = (y[14:0] == 15'd0) ? 1'b0 : a[15];
        end else begin
            y[14:0] = b[14:0] - a[14:0];
            y[15]   = b[15];
        end
    end
endmodule
