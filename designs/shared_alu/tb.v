// Self-checking testbench for shared_alu: every opcode on directed corners and random operands.
`timescale 1ns/1ps
module tb_shared_alu;
    reg  [15:0] pc, rs1, rs2, imm;
    reg  [1:0]  op;
    wire [15:0] y;
    reg  [15:0] m_y;
    integer errors, i, k, seed;

    shared_alu dut (.pc(pc), .rs1(rs1), .rs2(rs2), .imm(imm), .op(op), .y(y));

    task apply(input [15:0] p, input [15:0] r1, input [15:0] r2, input [15:0] im, input [1:0] o);
        begin
            pc = p; rs1 = r1; rs2 = r2; imm = im; op = o;
            #1;
            case (o)   // the model computes through 32-bit integers and truncates
                2'd0: m_y = (p + im) % 65536;
                2'd1: m_y = (r1 + im) % 65536;
                2'd2: m_y = (r1 + r2) % 65536;
                default: m_y = (65536 + r1 - r2) % 65536;
            endcase
            if (y !== m_y) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH op=%b pc=%h rs1=%h rs2=%h imm=%h: got y=%h, expected %h",
                             op, pc, rs1, rs2, imm, y, m_y);
            end
        end
    endtask

    initial begin
        errors = 0; seed = 2;
        for (k = 0; k < 4; k = k + 1) begin
            apply(16'h0000, 16'h0000, 16'h0000, 16'h0000, k);
            apply(16'hFFFF, 16'hFFFF, 16'hFFFF, 16'hFFFF, k);
            apply(16'hFFFF, 16'h0001, 16'h0001, 16'h0001, k);
            apply(16'h0001, 16'hFFFF, 16'hFFFF, 16'hFFFF, k);
            apply(16'h8000, 16'h8000, 16'h8000, 16'h8000, k);
            apply(16'h7FFF, 16'h0000, 16'h0001, 16'h0001, k);
            apply(16'h1234, 16'h5678, 16'h5678, 16'hFFFC, k);
            apply(16'h5555, 16'hAAAA, 16'h5555, 16'hAAAA, k);
            for (i = 0; i < 16; i = i + 1) begin
                apply(16'd1 << i, 16'hFFFF >> i, 16'd1 << i, 16'hFFFF, k);
                apply(16'hFFFF, 16'd1 << i, 16'hFFFF ^ (16'd1 << i), 16'd1 << i, k);
            end
        end
        for (i = 0; i < 4000; i = i + 1)
            apply($random(seed), $random(seed), $random(seed), $random(seed), $random(seed));
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
